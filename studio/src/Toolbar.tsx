// The top bar (open, new, save, save as, undo, redo, fit, export, status) and the banners
// under it (a refused save, the file changed or broken on disk, the server busy).
import { useReactFlow } from '@xyflow/react';
import { api } from './api';
import { newGraph, openGraph, reloadFromDisk, save } from './actions';
import { useStudio } from './store';
import { GraphPicker } from './GraphPicker';
import { fitMinZoom } from './Canvas';

function ask(q: string, def: string): string | null {
  const p = prompt(q, def);
  return p ? p.trim() : null;
}

export function Toolbar() {
  const rf = useReactFlow();
  const doc = useStudio((s) => s.doc);
  const dirty = useStudio((s) => s.dirty);
  const canUndo = useStudio((s) => s.past.length > 0);
  const canRedo = useStudio((s) => s.future.length > 0);
  const model = useStudio((s) => s.model);
  const errors = useStudio((s) => s.diags.filter((d) => d.severity === 'error').length);
  const say = useStudio((s) => s.say);

  const exportSvg = async () => {
    if (!doc) return;
    const r = await fetch(api.svgUrl(doc.path));
    if (!r.ok) {
      say(`Export failed: ${await r.text()}`, 'error');
      return;
    }
    const a = document.createElement('a');
    a.href = URL.createObjectURL(await r.blob());
    a.download = `${doc.path.split('/').pop()?.replace(/\.bpg$/, '') ?? 'graph'}.svg`;
    a.click();
    URL.revokeObjectURL(a.href);
  };

  return (
    <header className="topbar">
      <span className="brand">Sinew Studio</span>
      <GraphPicker
        onOpen={(p) => {
          if (useStudio.getState().dirty && !confirm('Discard unsaved edits?')) return;
          openGraph(p).catch((x) => say(String(x.message), 'error'));
        }}
      />
      <button
        data-testid="new"
        onClick={() => {
          const p = ask('New graph path (relative to the graphs folder; missing folders are created)', 'untitled.bpg');
          if (p) newGraph(p);
        }}
      >
        New
      </button>
      <button onClick={() => save()} data-testid="save" title="Ctrl+S">
        Save{dirty ? ' •' : ''}
      </button>
      <button
        data-testid="save-as"
        onClick={() => {
          const p = ask('Save as (path relative to the graphs folder)', doc?.path ?? 'untitled.bpg');
          if (p) save(null, p.endsWith('.bpg') ? p : `${p}.bpg`);
        }}
      >
        Save as…
      </button>
      <button onClick={() => useStudio.getState().undo()} disabled={!canUndo} title="Ctrl+Z" data-testid="undo">
        Undo
      </button>
      <button onClick={() => useStudio.getState().redo()} disabled={!canRedo} title="Ctrl+Shift+Z" data-testid="redo">
        Redo
      </button>
      <button onClick={() => rf.fitView({ padding: 0.15, duration: 200, minZoom: fitMinZoom(model?.nodes.length ?? 0) })}>Fit</button>
      <button onClick={exportSvg} data-testid="export-svg">
        Export picture
      </button>
      <span className={`status ${errors ? 'bad' : 'good'}`} data-testid="status">
        {model ? `${model.graph} · ${model.nodes.length} nodes · ${errors} errors` : 'loading…'}
      </span>
    </header>
  );
}

export function Banners() {
  const conflict = useStudio((s) => s.conflict);
  const diskChanged = useStudio((s) => s.diskChanged);
  const diskBroken = useStudio((s) => s.diskBroken);
  const busy = useStudio((s) => s.busy);
  const doc = useStudio((s) => s.doc);
  return (
    <div className="banners">
      {conflict && (
        <div className="banner conflict" data-testid="conflict">
          <b>Not saved:</b> {conflict.message}. Your edits are kept here; the file on disk is unchanged.
          <button onClick={() => save(conflict.version)}>Overwrite with mine</button>
          <button onClick={() => confirm('Discard your edits and load the file from disk?') && reloadFromDisk()}>Load disk version</button>
          <button onClick={() => useStudio.getState().conflicted(null)}>Keep editing</button>
        </div>
      )}
      {diskBroken && !conflict && (
        <div className="banner conflict" data-testid="disk-broken">
          <b>{doc?.path} no longer parses on disk</b>
          {diskBroken[0] ? ` (${diskBroken[0].code} line ${diskBroken[0].line}: ${diskBroken[0].message})` : ''}. The canvas shows
          the graph as it was.
          <button onClick={() => reloadFromDisk().catch((e) => useStudio.getState().say(String(e.message), 'error'))}>Load disk version</button>
          <button onClick={() => useStudio.getState().diskNoLongerParses(null)}>Keep editing</button>
        </div>
      )}
      {diskChanged && !conflict && !diskBroken && (
        <div className="banner" data-testid="disk-changed">
          {doc?.path} changed on disk while you edit it; saving will ask what to keep.
        </div>
      )}
      {busy && (
        <div className="banner" data-testid="busy">
          {busy}
        </div>
      )}
    </div>
  );
}
