// The clips view: every .animseq of the assets folder (imported ones under their model) and
// every .animsm; an open clip shows its timeline, the 3-D preview and the side panel. Edits
// are kept as the batch a save sends (PUT /api/clip), one undo step each; Ctrl+S saves.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ClipError, clipsApi, type ClipDoc, type ClipEntry, type Edit } from './api';
import { applyEdits } from './model';
import { MachineView } from './MachineView';
import { MarkerPanel } from './MarkerPanel';
import { Preview } from './Preview';
import { Timeline, type Selection } from './Timeline';
import './clips.css';

type Open = { kind: 'clip'; path: string } | { kind: 'machine'; path: string } | null;

export function ClipsApp({ initial }: { initial: string | null }) {
  const [entries, setEntries] = useState<ClipEntry[]>([]);
  const [machines, setMachines] = useState<string[]>([]);
  const [open, setOpen] = useState<Open>(initial ? { kind: initial.endsWith('.animsm') ? 'machine' : 'clip', path: initial } : null);
  const [doc, setDoc] = useState<ClipDoc | null>(null);
  const [edits, setEdits] = useState<Edit[]>([]);
  const [redo, setRedo] = useState<Edit[]>([]);
  const [selected, setSelected] = useState<Selection>(null);
  const [time, setTime] = useState(0);
  // Moves the timeline's playhead without a render of the page (the preview calls it on every
  // played frame; the time state itself is set when playback stops).
  const movePlayhead = useRef<((t: number) => void) | null>(null);
  const [flash, setFlash] = useState<Set<string>>(new Set());
  const [message, setMessage] = useState<{ text: string; kind: string } | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [svg, setSvg] = useState<string | null>(null);
  const state = useRef({ edits, doc, open });
  state.current = { edits, doc, open };

  const say = (text: string, kind = 'info') => setMessage({ text, kind });
  const refreshList = useCallback(() => {
    clipsApi.clips().then((r) => setEntries(r.clips)).catch((e) => say(e.message, 'error'));
    clipsApi.machines().then((r) => setMachines(r.machines)).catch(() => {});
  }, []);
  const load = useCallback(async (path: string) => {
    const d = await clipsApi.clip(path);
    setDoc(d);
    setEdits([]);
    setRedo([]);
    setConflict(null);
    return d;
  }, []);

  useEffect(refreshList, [refreshList]);
  useEffect(() => {
    setSvg(null);
    setDoc(null);
    setSelected(null);
    setTime(0);
    if (!open) return;
    const url = new URL(location.href);
    url.searchParams.delete('graph');
    url.searchParams.set('clip', open.path);
    history.replaceState(null, '', url);
    if (open.kind === 'clip') {
      load(open.path).catch((e) => say(e.message, 'error'));
      return;
    }
    // A state machine: its `sinew graph` picture, drawn again when the file changes.
    let last = '';
    const fetchSvg = () =>
      clipsApi
        .machineSvg(open.path)
        .then((s) => s !== last && setSvg((last = s)))
        .catch((e) => setSvg(`<p class="mp-err">${String(e.message).replace(/</g, '&lt;')}</p>`));
    fetchSvg();
    const t = setInterval(fetchSvg, 1500);
    return () => clearInterval(t);
  }, [open, load]);

  // Live project: a change on disk refreshes the list and, without pending edits, the clip.
  useEffect(() => {
    const es = new EventSource('/api/events');
    const changed = () => {
      refreshList();
      const { edits: e, doc: d, open: o } = state.current;
      if (!o || o.kind !== 'clip' || !d) return;
      clipsApi
        .clip(o.path)
        .then((n) => {
          if (n.version === d.version) return;
          if (e.length === 0) {
            setDoc(n);
            say(`${o.path} changed on disk: reloaded`);
          } else setConflict(`${o.path} changed on disk while you edit it; saving will ask what to keep`);
        })
        .catch(() => {});
    };
    es.addEventListener('palette', changed);
    es.addEventListener('file', changed);
    return () => es.close();
  }, [refreshList]);

  const clip = useMemo(() => (doc?.clip ? applyEdits(doc.clip, edits) : null), [doc, edits]);
  const edit = useCallback((e: Edit, select?: Selection) => {
    setEdits((x) => [...x, e]);
    setRedo([]);
    if (select !== undefined) setSelected(select);
    else if ((e.op === 'set_notify' && e.notify.id) || (e.op === 'set_window' && e.window.id)) {
      const id = e.op === 'set_notify' ? e.notify.id! : (e as { window: { id: string } }).window.id;
      setSelected({ kind: e.op === 'set_notify' ? 'notify' : 'window', id });
    } else if (e.op === 'remove_notify' || e.op === 'remove_window') setSelected(null);
  }, []);
  const undo = useCallback(() => {
    setEdits((x) => {
      if (!x.length) return x;
      setRedo((r) => [...r, x[x.length - 1]]);
      return x.slice(0, -1);
    });
  }, []);
  const redoOne = useCallback(() => {
    setRedo((r) => {
      if (!r.length) return r;
      setEdits((x) => [...x, r[r.length - 1]]);
      return r.slice(0, -1);
    });
  }, []);
  const save = useCallback(
    async (base?: string) => {
      const { edits: e, doc: d, open: o } = state.current;
      if (!d || !o || o.kind !== 'clip') return;
      if (!e.length && !base) return say('nothing to save');
      try {
        await clipsApi.save(o.path, base ?? d.version, e);
        await load(o.path);
        say(`saved ${o.path}`, 'ok');
        refreshList();
      } catch (x) {
        const err = x as ClipError;
        if (err.status === 409) {
          setConflict(`${o.path} changed on disk since it was read`);
          (state.current as { conflictVersion?: string }).conflictVersion = String(err.body.version ?? '');
        } else say(`not saved: ${err.message}`, 'error');
      }
    },
    [load, refreshList],
  );
  const removeSelected = useCallback(() => {
    if (!selected) return;
    edit(selected.kind === 'notify' ? { op: 'remove_notify', id: selected.id } : { op: 'remove_window', id: selected.id });
  }, [selected, edit]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const inField = (e.target as HTMLElement)?.closest?.('input, textarea, select');
      const k = e.key.toLowerCase();
      if ((e.ctrlKey || e.metaKey) && k === 's') {
        e.preventDefault();
        (document.activeElement as HTMLElement | null)?.blur?.();
        setTimeout(() => save(), 0);
      } else if (inField) return;
      else if ((e.ctrlKey || e.metaKey) && k === 'z' && !e.shiftKey) {
        e.preventDefault();
        undo();
      } else if ((e.ctrlKey || e.metaKey) && (k === 'y' || (k === 'z' && e.shiftKey))) {
        e.preventDefault();
        redoOne();
      } else if (e.key === 'Delete' || e.key === 'Backspace') {
        e.preventDefault();
        removeSelected();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [save, undo, redoOne, removeSelected]);

  useEffect(() => {
    if (!message) return;
    const t = setTimeout(() => setMessage(null), message.kind === 'error' ? 8000 : 3000);
    return () => clearTimeout(t);
  }, [message]);

  const onCross = useCallback((ids: string[]) => {
    setFlash(new Set(ids));
    setTimeout(() => setFlash(new Set()), 250);
  }, []);

  const own = entries.filter((e) => !e.model);
  const byModel = new Map<string, ClipEntry[]>();
  for (const e of entries) if (e.model) byModel.set(e.model, [...(byModel.get(e.model) ?? []), e]);
  const sel = clip && selected ? (selected.kind === 'notify' ? clip.notifies.find((n) => n.id === selected.id) : clip.windows.find((w) => w.id === selected.id)) : null;
  const item = (e: ClipEntry) => (
    <li
      key={e.path}
      className={open?.path === e.path ? 'on' : ''}
      data-clip-path={e.path}
      onClick={() => {
        if (edits.length && !confirm('Discard unsaved clip edits?')) return;
        setOpen({ kind: 'clip', path: e.path });
      }}
      title={e.path}
    >
      {e.name ?? e.path} <span className="muted">{e.errors ? `${e.errors} errors` : `${e.notifies + e.windows} markers`}</span>
    </li>
  );

  return (
    <div className="clips-app" data-open-path={open?.path ?? ''} data-ready={clip || svg ? 'true' : undefined} data-dirty={edits.length ? 'true' : undefined}>
      <aside className="cl-list">
        <h3>Clips</h3>
        <ul>{own.map(item)}</ul>
        {[...byModel].map(([m, list]) => (
          <div key={m} data-model={m}>
            <h4 title={m}>{m}</h4>
            <ul>{list.map(item)}</ul>
          </div>
        ))}
        <h3>State machines</h3>
        <ul>
          {machines.map((p) => (
            <li key={p} data-machine-path={p} className={open?.path === p ? 'on' : ''} onClick={() => setOpen({ kind: 'machine', path: p })}>
              {p}
            </li>
          ))}
        </ul>
      </aside>
      <main className="cl-main">
        <div className="cl-bar">
          <b>{open?.path ?? 'Pick a clip'}</b>
          {open?.kind === 'clip' && (
            <>
              <button onClick={() => save()} data-testid="clip-save" title="Ctrl+S">
                Save{edits.length ? ` • ${edits.length}` : ''}
              </button>
              <button onClick={undo} disabled={!edits.length} title="Ctrl+Z">
                Undo
              </button>
              <button onClick={redoOne} disabled={!redo.length} title="Ctrl+Shift+Z">
                Redo
              </button>
            </>
          )}
          {message && (
            <span className={`cl-msg ${message.kind}`} data-testid="clip-message">
              {message.text}
            </span>
          )}
        </div>
        {conflict && (
          <div className="banner conflict" data-testid="clip-conflict">
            <b>{conflict}.</b> Your edits are kept here.
            <button
              onClick={async () => {
                const d = await clipsApi.clip(open!.path);
                setConflict(null);
                save(d.version);
              }}
            >
              Apply my edits to the disk version
            </button>
            <button onClick={() => open && load(open.path)}>Load disk version</button>
          </div>
        )}
        {doc && !doc.clip && (
          <div className="cl-bad" data-testid="clip-errors">
            <p>{doc.path} does not load; fix it in a text editor:</p>
            <ul>
              {doc.diagnostics.map((d, i) => (
                <li key={i}>
                  {d.code} line {d.line}: {d.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        {clip && doc && (
          <>
            <Timeline clip={clip} time={time} mover={movePlayhead} selected={selected} flash={flash} onSelect={setSelected} onEdit={edit} onSeek={setTime} />
            <Preview
              key={doc.version}
              path={doc.path}
              clip={clip}
              model={doc.model}
              time={time}
              setTime={setTime}
              onFrame={(t) => movePlayhead.current?.(t)}
              onCross={onCross}
            />
          </>
        )}
        {open?.kind === 'machine' && svg && <MachineView svg={svg} />}
      </main>
      <aside className="cl-side">
        {clip && sel && selected ? (
          <MarkerPanel
            key={`${selected.kind}:${selected.id}`}
            kind={selected.kind}
            marker={sel}
            duration={clip.duration}
            onEdit={(e) => edit(e)}
            onRemove={removeSelected}
          />
        ) : (
          <p className="muted">Select a marker or a window to edit it; double-click a lane to add one.</p>
        )}
      </aside>
    </div>
  );
}
