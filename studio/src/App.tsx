// Sinew Studio: the page's layout — toolbar and banners, the palette, the canvas, the side
// panels — and the page's lifetime: first load, the debounced check after every edit, the live
// project over Server-Sent Events, the keyboard. State lives in one store (`store.ts`); what
// is drawn is derived from it by selectors (`derive.ts`).
import { useEffect } from 'react';
import { api, setOnBusy } from './api';
import { check, followProject, loadVocabulary, openGraph, save } from './actions';
import { addNodeAt } from './commands';
import { useStudio } from './store';
import { useShortcuts } from './hooks';
import { Palette } from './Palette';
import { Canvas } from './Canvas';
import { SidePanel } from './SidePanel';
import { Banners, Toolbar } from './Toolbar';

/** Where a node added without a place goes: the middle of the canvas. */
function middle(): { x: number; y: number } {
  const el = document.querySelector('.react-flow__viewport') as HTMLElement | null;
  const pane = document.querySelector('.react-flow')?.getBoundingClientRect();
  const m = el && new DOMMatrixReadOnly(getComputedStyle(el).transform);
  if (!m || !pane) return { x: 0, y: 0 };
  return { x: (pane.width / 2 - 100 - m.e) / m.a, y: (pane.height / 2 - 60 - m.f) / m.d };
}

export function App() {
  const ready = useStudio((s) => !!s.model && s.checkedOnce && !s.needsFit);
  const dirty = useStudio((s) => s.dirty);
  const model = useStudio((s) => s.model);
  const doc = useStudio((s) => s.doc);
  const entries = useStudio((s) => s.paletteEntries);
  const catalog = useStudio((s) => s.catalog);
  const change = useStudio((s) => s.paletteChange);

  // First load: the vocabulary, the graph list, the graph the address names (or the first).
  useEffect(() => {
    const s = useStudio.getState();
    setOnBusy((t) => useStudio.getState().setBusy(t));
    (async () => {
      try {
        await loadVocabulary();
        const g = await api.graphs();
        s.graphsListed(g.graphs);
        const want = new URLSearchParams(location.search).get('graph') ?? g.graphs[0]?.path;
        if (want) await openGraph(want);
      } catch (e) {
        useStudio.getState().say(String((e as Error).message), 'error');
      }
    })();
    return followProject();
  }, []);

  // After every edit (debounced) the page asks the compiler.
  useEffect(() => {
    if (!model || !doc || !dirty) return;
    const t = setTimeout(() => check(), 250);
    return () => clearTimeout(t);
  }, [model, doc, dirty]);

  useShortcuts({
    save: () => save(),
    undo: () => useStudio.getState().undo(),
    redo: () => useStudio.getState().redo(),
  });

  return (
    <div className="app" data-ready={ready ? 'true' : undefined} data-dirty={dirty ? 'true' : undefined} data-open-path={doc?.path}>
      <Toolbar />
      <Banners />
      <aside className="left">
        <Palette entries={entries} catalog={catalog} change={change} onAdd={(e) => addNodeAt(e.kind, middle())} />
      </aside>
      <Canvas addAt={addNodeAt} />
      <SidePanel />
    </div>
  );
}
