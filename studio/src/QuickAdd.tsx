// The search at the cursor (double-click, right-click or Space on the canvas; a wire dropped
// on empty canvas): fuzzy search of the palette, arrow keys move, Enter adds. Opened from a
// wire, it offers only kinds with a pin that accepts the wire. Test hook: data-search-kind.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { PaletteEntry } from './api';
import { fuzzy } from './Palette';
import { useStudio, type Search } from './store';
import { compatiblePin } from './commands';

export function QuickAdd(props: { search: Search; onAdd: (kind: string, at: Search['flow'], wire?: Search['wire']) => void }) {
  const { search } = props;
  const entries = useStudio((s) => s.paletteEntries);
  const [active, setActive] = useState(0);
  const list = useRef<HTMLDivElement>(null);
  const offered = useMemo(() => {
    const w = search.wire;
    return w ? entries.filter((e) => compatiblePin(e, w) !== null) : entries;
  }, [entries, search.wire]);
  const hits: PaletteEntry[] = useMemo(() => fuzzy(offered, search.query).slice(0, 40), [offered, search.query]);
  useEffect(() => setActive(0), [search.query]);
  useEffect(() => {
    list.current?.querySelector('.qa-hit.active')?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  const close = () => useStudio.getState().openSearch(null);
  const add = (e: PaletteEntry) => {
    props.onAdd(e.kind, search.flow, search.wire);
    close();
  };
  return (
    <div className="quick-add" style={{ left: search.x, top: search.y }} data-testid="quick-add" onContextMenu={(e) => e.preventDefault()}>
      {search.wire && (
        <div className="qa-note">
          nodes that take <b>{search.wire.type}</b> {search.wire.output ? 'in' : 'out'}
        </div>
      )}
      <input
        autoFocus
        placeholder="Add node…"
        value={search.query}
        onChange={(e) => useStudio.getState().openSearch({ ...search, query: e.target.value })}
        onKeyDown={(e) => {
          if (e.key === 'Escape') close();
          else if (e.key === 'ArrowDown') {
            e.preventDefault();
            setActive((a) => Math.min(a + 1, hits.length - 1));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setActive((a) => Math.max(a - 1, 0));
          } else if (e.key === 'Enter' && hits[active]) add(hits[active]);
        }}
      />
      <div className="qa-list" ref={list}>
        {hits.map((h, i) => (
          <div
            key={h.kind}
            className={`qa-hit${i === active ? ' active' : ''}`}
            data-search-kind={h.kind}
            data-palette-kind={h.kind}
            onMouseEnter={() => setActive(i)}
            onClick={() => add(h)}
          >
            {h.name} <span>{h.kind}</span>
          </div>
        ))}
        {hits.length === 0 && <div className="hint">No node matches.</div>}
      </div>
    </div>
  );
}
