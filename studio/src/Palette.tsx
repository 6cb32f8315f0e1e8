// The palette: every kind from /api/palette by category (catalog events under their
// sequence), fuzzy search on name and kind, quarantined identities shown disabled with the
// files that claim them, and what the last live refresh added or removed.
import { useMemo, useState } from 'react';
import Fuse from 'fuse.js';
import type { Catalog, PaletteEntry } from './api';
import { shortFile } from './graph';

export interface PaletteChange {
  added: string[];
  removed: string[];
  changed: string[];
  at: number;
}

/** Display names of every kind the page has seen (a removed kind keeps its name). */
const seenNames = new Map<string, string>();

export function fuzzy(entries: PaletteEntry[], query: string): PaletteEntry[] {
  if (!query.trim()) return entries;
  // Extended search: words separated by spaces must all match (each one fuzzily).
  const f = new Fuse(entries, {
    keys: ['name', 'kind', 'category'],
    threshold: 0.35,
    ignoreLocation: true,
    useExtendedSearch: true,
  });
  const q = query
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[|'!^$=]/g, ''))
    .filter(Boolean)
    .join(' ');
  return q ? f.search(q).map((r) => r.item) : entries;
}

export function Palette(props: {
  entries: PaletteEntry[];
  catalog: Catalog | null;
  change: PaletteChange | null;
  onAdd: (e: PaletteEntry) => void;
}) {
  const [query, setQuery] = useState('');
  const shown = useMemo(() => fuzzy(props.entries, query), [props.entries, query]);
  const groups = useMemo(() => {
    const m = new Map<string, PaletteEntry[]>();
    for (const e of shown) {
      const l = m.get(e.category) ?? [];
      l.push(e);
      m.set(e.category, l);
    }
    return [...m.entries()];
  }, [shown]);
  const q = props.catalog?.quarantined ?? [];
  const files = useMemo(() => new Map((props.catalog?.events ?? []).map((e) => [`event ${e.id}`, shortFile(e.file)])), [props.catalog]);
  for (const e of props.entries) seenNames.set(e.kind, e.name);
  const label = (k: string) => {
    const n = seenNames.get(k) ?? seenNames.get(`event ${k}`);
    const f = files.get(k) ?? files.get(`event ${k}`);
    return (
      <>
        {n ?? k}
        {f ? <span className="pc-file"> · {f}</span> : null}
        <span className="pc-kind"> {k.split('.').pop()}</span>
      </>
    );
  };
  return (
    <div className="palette">
      <input
        className="palette-search"
        placeholder="Search nodes…"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        data-testid="palette-search"
      />
      {props.change && (
        <div className="palette-change" data-testid="palette-change">
          <b>Palette updated</b>
          {props.change.added.map((k) => (
            <div key={`a${k}`} className="added" title={k}>+ {label(k)}</div>
          ))}
          {props.change.removed.map((k) => (
            <div key={`r${k}`} className="removed" title={k}>− {label(k)}</div>
          ))}
          {props.change.changed.map((k) => (
            <div key={`c${k}`} className="changed" title={k}>~ {label(k)}</div>
          ))}
        </div>
      )}
      <div className="palette-list">
        {groups.map(([cat, list]) => (
          <details key={cat} open={query !== '' || !cat.startsWith('Math')}>
            <summary>{cat}</summary>
            {list.map((e) => (
              <div
                key={e.kind}
                className="palette-entry"
                data-palette-kind={e.kind}
                draggable
                onDragStart={(ev) => {
                  ev.dataTransfer.setData('application/x-sinew-kind', e.kind);
                  ev.dataTransfer.effectAllowed = 'copy';
                }}
                onDoubleClick={() => props.onAdd(e)}
                data-source-file={files.get(e.kind)}
                title={`${e.kind}${files.get(e.kind) ? `\nfrom ${files.get(e.kind)}` : ''}\n${e.description ?? ''}\nin: ${e.inputs.map((p) => `${p.name}:${p.type}`).join(', ')}\nout: ${e.outputs
                  .map((p) => `${p.name}:${p.type}`)
                  .join(', ')}`}
              >
                <span className="pe-name">{e.name}</span>
                <span className="pe-kind">{files.get(e.kind) ?? e.kind}</span>
              </div>
            ))}
          </details>
        ))}
        {q.length > 0 && (
          <details open>
            <summary>Quarantined</summary>
            {q.map((x) => (
              <div
                key={x.id}
                className="palette-entry disabled"
                data-palette-kind={`event ${x.id}`}
                data-quarantined="true"
                aria-disabled="true"
                title={`claimed by ${x.files.join(', ')}`}
              >
                <span className="pe-name">event {x.id}</span>
                <span className="pe-kind">quarantined: claimed by {x.files.join(', ')}</span>
              </div>
            ))}
          </details>
        )}
      </div>
    </div>
  );
}
