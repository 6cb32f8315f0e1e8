// Sinew Studio: the page. Loads a graph as a model, shows it on a React Flow canvas, edits it
// (every edit is a new model on the undo stack), checks it (debounced /api/check), saves it
// (Ctrl+S, PUT with the version it was read at; 409 keeps both sides), follows the project
// live over Server-Sent Events, and runs scenes for the debugger view.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  applyNodeChanges,
  useReactFlow,
  useUpdateNodeInternals,
  type Connection,
  type Edge,
  type FinalConnectionState,
  type NodeChange,
} from '@xyflow/react';
import {
  ApiError,
  RawNum,
  api,
  type Catalog,
  type Diagnostic,
  type Executed,
  type KindInfo,
  type Lit,
  type Model,
  type PaletteEntry,
  type PinMap,
} from './api';
import {
  IDENT,
  autoLayout,
  baseKind,
  cloneModel,
  familyOf,
  freshId,
  kindToAdd,
  pinsOf,
  refuseLink,
  splitRef,
  subjectOf,
  type NodePins,
  type Vocabulary,
} from './graph';
import { NodeView, type NodeData, type SinewNode } from './NodeView';
import { WireView, type SinewWire } from './WireView';
import { Palette, fuzzy, type PaletteChange } from './Palette';
import { Inspector, Problems, Variables } from './Panels';
import { Runs } from './Runs';
import { useHistory } from './history';
import { useLiveProject, useShortcuts } from './hooks';

const nodeTypes = { sinew: NodeView };

// React Flow shows a node (`visibility: visible`) only once it has measured it, and measures
// again only when the node's size changes or when the node turns from measured to unmeasured
// between two of its renders. A node object rebuilt without the `measured` React Flow gave
// it makes React Flow forget the measurement; when that lands right after the measurement,
// before the node rendered as measured, nothing measures it again and the node stays hidden
// for good (the studio's e2e flake: node "left" hidden after a rebuild). So a rebuilt node
// keeps its previous object when nothing about it changed, and its measurement otherwise
// (a functional update, so it composes with the dimension changes React Flow queues).
function keepMeasured(prev: SinewNode[], next: SinewNode[]): SinewNode[] {
  const before = new Map(prev.map((n) => [n.id, n]));
  return next.map((n) => {
    const old = before.get(n.id);
    if (!old?.measured) return n;
    if (old.data === n.data && old.selected === n.selected && old.position.x === n.position.x && old.position.y === n.position.y) {
      return old;
    }
    return { ...n, measured: old.measured };
  });
}
const edgeTypes = { wire: WireView };

interface Loaded {
  path: string;
  version: string | null;
}

type Tab = 'node' | 'vars' | 'problems' | 'run';

export function App() {
  const rf = useReactFlow<SinewNode, SinewWire>();
  const [vocab, setVocab] = useState<Vocabulary>({ palette: new Map(), kinds: new Map() });
  const [paletteEntries, setPaletteEntries] = useState<PaletteEntry[]>([]);
  const [catalog, setCatalog] = useState<Catalog | null>(null);
  const [paletteChange, setPaletteChange] = useState<PaletteChange | null>(null);
  const [graphs, setGraphs] = useState<{ path: string; errors: number; warnings: number }[]>([]);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const hist = useHistory();
  const model = hist.model;
  const { reset: resetHistory, push: pushHistory } = hist;
  const [dirty, setDirty] = useState(false);
  const [diags, setDiags] = useState<Diagnostic[]>([]);
  const [resolved, setResolved] = useState<{ pins: PinMap; kinds: Record<string, string> }>({ pins: {}, kinds: {} });
  const [layout, setLayout] = useState<Map<string, { x: number; y: number }>>(new Map());
  const [rfNodes, setRfNodes] = useState<SinewNode[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [toast, setToast] = useState<{ text: string; kind: string } | null>(null);
  const [conflict, setConflict] = useState<{ message: string; version: string | null } | null>(null);
  const [diskChanged, setDiskChanged] = useState(false);
  const [executed, setExecuted] = useState<Executed[] | null>(null);
  const [tab, setTab] = useState<Tab>('node');
  const [search, setSearch] = useState<{ x: number; y: number; query: string } | null>(null);
  const [checkedOnce, setCheckedOnce] = useState(false);
  const checkSeq = useRef(0);
  const needsFit = useRef(false);
  const stateRef = useRef({ model, loaded, dirty });
  stateRef.current = { model, loaded, dirty };

  const say = useCallback((text: string, kind = 'info') => {
    setToast({ text, kind });
  }, []);

  // ---- vocabulary ----
  const loadVocabulary = useCallback(async () => {
    const [p, k, c] = await Promise.all([api.palette(), api.kinds(), api.catalog()]);
    setPaletteEntries(p.nodes);
    setCatalog(c);
    setVocab({
      palette: new Map(p.nodes.map((e) => [e.kind, e])),
      kinds: new Map<string, KindInfo>(k.kinds.map((x) => [x.kind, x])),
    });
  }, []);
  const refreshGraphs = useCallback(() => api.graphs().then((g) => setGraphs(g.graphs)), []);

  // ---- loading a graph ----
  const openGraph = useCallback(
    async (path: string) => {
      const doc = await api.graph(path);
      if (!doc.model) throw new Error(`${path} does not parse; fix it in a text editor first`);
      resetHistory(doc.model);
      setLoaded({ path, version: doc.version });
      setDirty(false);
      setDiags(doc.diagnostics);
      setResolved({ pins: doc.pins, kinds: Object.fromEntries(doc.model.nodes.map((n) => [n.id, n.kind])) });
      setLayout(new Map());
      setSelected(null);
      setConflict(null);
      setDiskChanged(false);
      setExecuted(null);
      setCheckedOnce(true);
      needsFit.current = true;
      const u = new URL(location.href);
      u.searchParams.set('graph', path);
      history.replaceState(null, '', u);
    },
    [resetHistory, rf],
  );

  useEffect(() => {
    (async () => {
      try {
        await loadVocabulary();
        const g = await api.graphs();
        setGraphs(g.graphs);
        const want = new URLSearchParams(location.search).get('graph') ?? g.graphs[0]?.path;
        if (want) await openGraph(want);
      } catch (e) {
        say(String((e as Error).message), 'error');
      }
    })();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // ---- pins and layout ----
  // A node whose kind stops resolving (its event was renamed on disk) keeps the pins it had,
  // so its wires stay drawn while its badge says what is wrong.
  const lastPins = useRef(new Map<string, { kind: string; pins: NodePins }>());
  const pinsCache = useMemo(() => {
    const m = new Map<string, NodePins>();
    if (!model) return m;
    for (const n of model.nodes) {
      let p = pinsOf(n, model, vocab, resolved.pins, resolved.kinds);
      const last = lastPins.current.get(n.id);
      if (p.inputs.length === 0 && p.outputs.length === 0 && last && last.kind === n.kind) p = last.pins;
      else lastPins.current.set(n.id, { kind: n.kind, pins: p });
      m.set(n.id, p);
    }
    return m;
  }, [model, vocab, resolved]);
  const pinsFn = useCallback((id: string) => pinsCache.get(id), [pinsCache]);

  useEffect(() => {
    if (!model) return;
    const missing = model.nodes.some((n) => (n.x === null || n.y === null) && !layout.has(n.id));
    if (missing) setLayout(autoLayout(model, (id) => pinsCache.get(id) ?? { inputs: [], outputs: [] }));
  }, [model, layout, pinsCache]);

  // ---- the canvas's nodes and wires, derived from the model ----
  const diagsByNode = useMemo(() => {
    const m = new Map<string, Diagnostic[]>();
    for (const d of diags) if (d.node) m.set(d.node, [...(m.get(d.node) ?? []), d]);
    return m;
  }, [diags]);
  const order = useMemo(() => {
    const m = new Map<string, number[]>();
    if (!executed || !model) return m;
    let i = 0;
    for (const e of executed) {
      if (e.graph !== model.graph) continue;
      // The event node that started the handler comes first, whether or not it ran code.
      const start = e.event ? model.nodes.find((n) => n.kind === `event ${e.event}`)?.id : undefined;
      const seq = start && e.nodes[0] !== start ? [start, ...e.nodes] : e.nodes;
      for (const n of seq) m.set(n, [...(m.get(n) ?? []), ++i]);
    }
    return m;
  }, [executed, model]);
  const linkedInputs = useMemo(() => {
    const m = new Map<string, string[]>();
    for (const l of model?.links ?? []) {
      const [n, p] = splitRef(l.to);
      m.set(n, [...(m.get(n) ?? []), p]);
    }
    return m;
  }, [model]);
  const dataCache = useRef(new Map<string, { key: string; pins: string; data: NodeData }>());
  const updateNodeInternals = useUpdateNodeInternals();
  const remeasure = useRef<string[]>([]);

  useEffect(() => {
    if (!model) return;
    const cache = dataCache.current;
    const next: SinewNode[] = model.nodes.map((n) => {
      const pins = pinsCache.get(n.id) ?? { inputs: [], outputs: [] };
      const d = diagsByNode.get(n.id) ?? [];
      const ex = order.get(n.id) ?? [];
      const li = linkedInputs.get(n.id) ?? [];
      const family = familyOf(n.kind, vocab);
      const key = JSON.stringify([n.kind, pins, n.props, d, ex, li, family, n.comment ?? ''], (_k, v) =>
        typeof v === 'object' && v !== null && 'text' in v && Object.keys(v).length === 1 ? v.text : v,
      );
      let c = cache.get(n.id);
      if (!c || c.key !== key) {
        const pinsKey = JSON.stringify(pins);
        // A node whose pins changed has its handles elsewhere: React Flow measures it again.
        if (c && c.pins !== pinsKey) remeasure.current.push(n.id);
        c = {
          key,
          pins: pinsKey,
          data: { id: n.id, kind: n.kind, family, pins, props: n.props, linkedInputs: li, diagnostics: d, executed: ex, comment: n.comment ?? '' },
        };
        cache.set(n.id, c);
      }
      const pos = n.x !== null && n.y !== null ? { x: n.x, y: n.y } : layout.get(n.id) ?? { x: 0, y: 0 };
      return { id: n.id, type: 'sinew', position: pos, data: c.data, selected: n.id === selected };
    });
    setRfNodes((prev) => keepMeasured(prev, next));
    const unplaced = model.nodes.some((n) => (n.x === null || n.y === null) && !layout.has(n.id));
    if (needsFit.current && !unplaced) {
      needsFit.current = false;
      requestAnimationFrame(() => requestAnimationFrame(() => rf.fitView({ padding: 0.12 })));
    }
  }, [rf, model, pinsCache, diagsByNode, order, linkedInputs, vocab, layout, selected]);
  useEffect(() => {
    if (remeasure.current.length === 0) return;
    updateNodeInternals(remeasure.current);
    remeasure.current = [];
  }, [rfNodes, updateNodeInternals]);

  const edges: SinewWire[] = useMemo(() => {
    if (!model) return [];
    const ran = new Set(order.keys());
    return model.links.map((l) => {
      const [a, ap] = splitRef(l.from);
      const [b, bp] = splitRef(l.to);
      const t = pinsCache.get(a)?.outputs.find((p) => p.name === ap)?.type ?? 'var';
      const link = `${l.from} -> ${l.to}`;
      return {
        id: link,
        source: a,
        sourceHandle: ap,
        target: b,
        targetHandle: bp,
        type: 'wire',
        data: { type: t, link, executed: ran.has(a) && ran.has(b) },
      };
    });
  }, [model, pinsCache, order]);

  // ---- editing ----
  const edit = useCallback(
    (f: (m: Model) => Model | null) => {
      const cur = stateRef.current.model;
      if (!cur) return;
      const next = f(cloneModel(cur));
      if (!next) return;
      pushHistory(next);
      setDirty(true);
    },
    [pushHistory],
  );

  const addNode = useCallback(
    (entry: PaletteEntry, pos?: { x: number; y: number }) => {
      const cur = stateRef.current.model;
      if (!cur) return;
      const taken = new Set(cur.nodes.map((n) => n.id));
      const kind = kindToAdd(entry, cur, vocab);
      const id = freshId(kind, taken);
      const at =
        pos ??
        rf.screenToFlowPosition({ x: window.innerWidth / 2 - 100, y: window.innerHeight / 2 - 60 });
      edit((m) => {
        m.nodes.push({ id, kind, x: Math.round(at.x), y: Math.round(at.y), props: {}, comment: '', line_comment: null });
        return m;
      });
      setSelected(id);
      setTab('node');
    },
    [edit, rf, vocab],
  );

  const onNodesChange = useCallback((changes: NodeChange<SinewNode>[]) => {
    const keep = changes.filter((c) => c.type !== 'remove');
    setRfNodes((ns) => applyNodeChanges(keep, ns));
    for (const c of changes) if (c.type === 'select' && c.selected) setSelected(c.id);
  }, []);

  const onNodeDragStop = useCallback(
    (_e: unknown, _n: SinewNode, moved: SinewNode[]) => {
      edit((m) => {
        let changed = false;
        for (const r of moved) {
          const n = m.nodes.find((x) => x.id === r.id);
          if (!n) continue;
          const x = Math.round(r.position.x);
          const y = Math.round(r.position.y);
          if (n.x !== x || n.y !== y) {
            n.x = x;
            n.y = y;
            changed = true;
          }
        }
        return changed ? m : null;
      });
    },
    [edit],
  );

  const deleteNodes = useCallback(
    (ids: string[]) => {
      const del = new Set(ids);
      edit((m) => {
        m.nodes = m.nodes.filter((n) => !del.has(n.id));
        m.links = m.links.filter((l) => !del.has(splitRef(l.from)[0]) && !del.has(splitRef(l.to)[0]));
        return m;
      });
      setSelected(null);
    },
    [edit],
  );

  const reason = useCallback(
    (c: Connection | Edge) =>
      refuseLink(c.source, c.sourceHandle ?? '', c.target, c.targetHandle ?? '', pinsFn),
    [pinsFn],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      const r = reason(c);
      if (r) {
        say(`Link refused: ${r}`, 'refused');
        return;
      }
      const from = `${c.source}.${c.sourceHandle}`;
      const to = `${c.target}.${c.targetHandle}`;
      const exec = pinsFn(c.source)?.outputs.find((p) => p.name === c.sourceHandle)?.type === 'exec';
      edit((m) => {
        // A data input takes one link and an exec output leads to one node: a new link
        // replaces the old one, as designers expect.
        m.links = m.links.filter((l) => (exec ? l.from !== from : l.to !== to));
        m.links.push({ from, to, comment: '', line_comment: null });
        return m;
      });
    },
    [edit, pinsFn, reason, say],
  );

  const onConnectEnd = useCallback(
    (_e: MouseEvent | TouchEvent, s: FinalConnectionState) => {
      if (!s.isValid && s.fromHandle && s.toHandle) {
        const from = s.fromHandle.type === 'source' ? s.fromHandle : s.toHandle;
        const to = s.fromHandle.type === 'source' ? s.toHandle : s.fromHandle;
        const r =
          s.fromHandle.type === s.toHandle.type
            ? `a link runs from an output to an input`
            : refuseLink(from.nodeId, from.id ?? '', to.nodeId, to.id ?? '', pinsFn);
        if (r) say(`Link refused: ${r}`, 'refused');
      }
    },
    [pinsFn, say],
  );

  const renameNode = useCallback(
    (from: string, to: string): string | null => {
      if (!IDENT.test(to)) return `\`${to}\` is not a node name (letters, digits, _)`;
      if (stateRef.current.model?.nodes.some((n) => n.id === to)) return `a node \`${to}\` exists`;
      edit((m) => {
        const n = m.nodes.find((x) => x.id === from);
        if (!n) return null;
        n.id = to;
        const fix = (r: string) => {
          const [a, p] = splitRef(r);
          return a === from ? `${to}.${p}` : r;
        };
        m.links = m.links.map((l) => ({ ...l, from: fix(l.from), to: fix(l.to) }));
        return m;
      });
      setSelected(to);
      return null;
    },
    [edit],
  );

  const addVar = useCallback(
    (name: string, type: string): string | null => {
      if (!IDENT.test(name)) return `\`${name}\` is not a variable name`;
      if (stateRef.current.model?.vars.some((v) => v.name === name)) return `a variable \`${name}\` exists`;
      const defaults: Record<string, Lit> = { bool: false, int: 0, float: new RawNum('0.0'), string: '', vec3: [0, 0, 0], entity: '' };
      edit((m) => {
        m.vars.push({ name, type, default: defaults[type] ?? 0, comment: '', line_comment: null });
        return m;
      });
      return null;
    },
    [edit],
  );

  const renameVar = useCallback(
    (from: string, to: string): string | null => {
      if (!IDENT.test(to)) return `\`${to}\` is not a variable name`;
      if (stateRef.current.model?.vars.some((v) => v.name === to)) return `a variable \`${to}\` exists`;
      edit((m) => {
        const v = m.vars.find((x) => x.name === from);
        if (!v) return null;
        v.name = to;
        for (const n of m.nodes) {
          const b = baseKind(n.kind);
          if ((b === 'var.get' || b === 'var.set') && subjectOf(n.kind) === from) n.kind = `${b} ${to}`;
        }
        return m;
      });
      return null;
    },
    [edit],
  );

  // ---- checking (debounced) ----
  useEffect(() => {
    if (!model || !loaded || !dirty) return;
    const seq = ++checkSeq.current;
    const t = setTimeout(async () => {
      try {
        const r = await api.check(loaded.path, model);
        if (seq !== checkSeq.current) return;
        setDiags(r.diagnostics);
        setResolved({ pins: r.pins, kinds: Object.fromEntries(model.nodes.map((n) => [n.id, n.kind])) });
        setCheckedOnce(true);
      } catch (e) {
        if (seq === checkSeq.current) say(`check failed: ${(e as Error).message}`, 'error');
      }
    }, 250);
    return () => clearTimeout(t);
  }, [model, loaded, dirty, say]);

  const recheck = useCallback(async () => {
    const { model: m, loaded: l } = stateRef.current;
    if (!m || !l) return;
    const seq = ++checkSeq.current;
    const r = await api.check(l.path, m);
    if (seq !== checkSeq.current) return;
    setDiags(r.diagnostics);
    setResolved({ pins: r.pins, kinds: Object.fromEntries(m.nodes.map((n) => [n.id, n.kind])) });
  }, []);

  // ---- saving ----
  const save = useCallback(
    async (base?: string | null) => {
      const { model: m, loaded: l } = stateRef.current;
      if (!m || !l) return;
      try {
        const r = await api.save(l.path, base === undefined ? l.version : base, m);
        setLoaded({ path: l.path, version: r.version });
        if (stateRef.current.model === m) setDirty(false);
        setDiags(r.diagnostics);
        setConflict(null);
        setDiskChanged(false);
        say(`Saved ${l.path}`, 'ok');
        refreshGraphs();
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) {
          setConflict({ message: e.message, version: (e.body.version as string | null) ?? null });
        } else {
          say(`Save failed: ${(e as Error).message}`, 'error');
        }
      }
    },
    [refreshGraphs, say],
  );

  // ---- keyboard ----
  useShortcuts({
    save: () => save(),
    undo: () => hist.undo() && setDirty(true),
    redo: () => hist.redo() && setDirty(true),
  });

  // ---- live project (Server-Sent Events) ----
  useLiveProject(stateRef, { loadVocabulary, recheck, refreshGraphs, openGraph, say }, {
    setPaletteChange,
    setDiags,
    setDiskChanged,
  });

  // ---- drop and double-click search ----
  const onDrop = useCallback(
    (e: React.DragEvent) => {
      e.preventDefault();
      const kind = e.dataTransfer.getData('application/x-sinew-kind');
      const entry = vocab.palette.get(kind);
      if (!entry) return;
      addNode(entry, rf.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
    },
    [addNode, rf, vocab],
  );
  const onDoubleClick = useCallback((e: React.MouseEvent) => {
    if (!(e.target as HTMLElement).classList.contains('react-flow__pane')) return;
    setSearch({ x: e.clientX, y: e.clientY, query: '' });
  }, []);
  const searchHits = useMemo(
    () => (search ? fuzzy(paletteEntries, search.query).slice(0, 12) : []),
    [search, paletteEntries],
  );

  const exportSvg = useCallback(async () => {
    if (!loaded) return;
    const r = await fetch(api.svgUrl(loaded.path));
    if (!r.ok) {
      const t = await r.text();
      say(`Export failed: ${t}`, 'error');
      return;
    }
    const blob = await r.blob();
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${loaded.path.split('/').pop()?.replace(/\.bpg$/, '') ?? 'graph'}.svg`;
    a.click();
    URL.revokeObjectURL(a.href);
  }, [loaded, say]);

  const newGraph = useCallback(async () => {
    const p = prompt('New graph path (relative to the graphs folder)', 'untitled.bpg');
    if (!p) return;
    const path = p.endsWith('.bpg') ? p : `${p}.bpg`;
    const name = (path.split('/').pop() ?? 'untitled').replace(/\.bpg$/, '').replace(/[^A-Za-z0-9_]/g, '_');
    resetHistory({ graph: name, vars: [], nodes: [], links: [] });
    setLoaded({ path, version: null });
    setDirty(true);
    setDiags([]);
    setSelected(null);
  }, [resetHistory]);

  const selNode = model?.nodes.find((n) => n.id === selected) ?? null;
  const focusNode = useCallback(
    (id: string) => {
      setSelected(id);
      setTab('node');
      const n = rf.getNode(id);
      if (n) rf.setCenter(n.position.x + 110, n.position.y + 40, { zoom: Math.max(rf.getZoom(), 0.9), duration: 200 });
    },
    [rf],
  );

  useEffect(() => {
    if (!toast) return;
    const t = setTimeout(() => setToast(null), toast.kind === 'refused' ? 8000 : 4000);
    return () => clearTimeout(t);
  }, [toast]);

  const errors = diags.filter((d) => d.severity === 'error').length;
  return (
    <div className="app" data-ready={model && checkedOnce ? 'true' : undefined} data-dirty={dirty ? 'true' : undefined}>
      <header className="topbar">
        <span className="brand">Sinew Studio</span>
        <select
          value={loaded?.path ?? ''}
          data-testid="graph-picker"
          onChange={(e) => {
            if (dirty && !confirm('Discard unsaved edits?')) return;
            openGraph(e.target.value).catch((x) => say(String(x.message), 'error'));
          }}
        >
          {loaded && !graphs.some((g) => g.path === loaded.path) && <option>{loaded.path}</option>}
          {graphs.map((g) => (
            <option key={g.path} value={g.path}>
              {g.path}
              {g.errors ? ` (${g.errors} errors)` : ''}
            </option>
          ))}
        </select>
        <button onClick={newGraph}>New</button>
        <button onClick={() => save()} data-testid="save" title="Ctrl+S">
          Save{dirty ? ' •' : ''}
        </button>
        <button onClick={() => hist.undo() && setDirty(true)} disabled={!hist.canUndo} title="Ctrl+Z">
          Undo
        </button>
        <button onClick={() => hist.redo() && setDirty(true)} disabled={!hist.canRedo} title="Ctrl+Shift+Z">
          Redo
        </button>
        <button onClick={() => rf.fitView({ padding: 0.15, duration: 200 })}>Fit</button>
        <button onClick={exportSvg} data-testid="export-svg">
          Export picture
        </button>
        <span className={`status ${errors ? 'bad' : 'good'}`} data-testid="status">
          {model ? `${model.graph} · ${model.nodes.length} nodes · ${errors} errors` : 'loading…'}
        </span>
      </header>
      {conflict && (
        <div className="banner conflict" data-testid="conflict">
          <b>Not saved:</b> {conflict.message}. Your edits are kept here; the file on disk is unchanged.
          <button onClick={() => save(conflict.version)}>Overwrite with mine</button>
          <button
            onClick={() => {
              if (loaded && confirm('Discard your edits and load the file from disk?')) openGraph(loaded.path);
            }}
          >
            Load disk version
          </button>
          <button onClick={() => setConflict(null)}>Keep editing</button>
        </div>
      )}
      {diskChanged && !conflict && (
        <div className="banner" data-testid="disk-changed">
          {loaded?.path} changed on disk while you edit it; saving will ask what to keep.
        </div>
      )}
      <aside className="left">
        <Palette entries={paletteEntries} catalog={catalog} change={paletteChange} onAdd={(e) => addNode(e)} />
      </aside>
      <main className="canvas" onDrop={onDrop} onDragOver={(e) => e.preventDefault()} onDoubleClick={onDoubleClick}>
        <ReactFlow<SinewNode, SinewWire>
          nodes={rfNodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          onNodesChange={onNodesChange}
          onNodeDragStop={onNodeDragStop}
          onNodesDelete={(ns) => deleteNodes(ns.map((n) => n.id))}
          onEdgesDelete={(es) =>
            edit((m) => {
              const gone = new Set(es.map((e) => e.id));
              m.links = m.links.filter((l) => !gone.has(`${l.from} -> ${l.to}`));
              return m;
            })
          }
          onConnect={onConnect}
          onConnectEnd={onConnectEnd}
          isValidConnection={(c) => reason(c) === null}
          onPaneClick={() => {
            setSelected(null);
            setSearch(null);
          }}
          zoomOnDoubleClick={false}
          deleteKeyCode={['Delete', 'Backspace']}
          minZoom={0.05}
          maxZoom={2.5}
          fitView
          proOptions={{ hideAttribution: true }}
        >
          <Background gap={24} color="#2a2a31" />
          <MiniMap pannable zoomable maskColor="#0c0c10cc" bgColor="#1b1b21" nodeColor={(n) => ((n.data as NodeData | undefined)?.executed?.length ? '#ffd166' : '#666')} />
          <Controls />
        </ReactFlow>
        {search && (
          <div className="quick-add" style={{ left: search.x, top: search.y }} data-testid="quick-add">
            <input
              autoFocus
              placeholder="Add node…"
              value={search.query}
              onChange={(e) => setSearch({ ...search, query: e.target.value })}
              onKeyDown={(e) => {
                if (e.key === 'Escape') setSearch(null);
                if (e.key === 'Enter' && searchHits[0]) {
                  addNode(searchHits[0], rf.screenToFlowPosition({ x: search.x, y: search.y }));
                  setSearch(null);
                }
              }}
            />
            {searchHits.map((h) => (
              <div
                key={h.kind}
                className="qa-hit"
                data-palette-kind={h.kind}
                onClick={() => {
                  addNode(h, rf.screenToFlowPosition({ x: search.x, y: search.y }));
                  setSearch(null);
                }}
              >
                {h.name} <span>{h.kind}</span>
              </div>
            ))}
          </div>
        )}
        {toast && (
          <div className={`toast ${toast.kind}`} data-testid={toast.kind === 'refused' ? 'link-refused' : 'toast'}>
            {toast.text}
          </div>
        )}
      </main>
      <aside className="right">
        <nav className="tabs">
          {(
            [
              ['node', 'Node'],
              ['vars', 'Variables'],
              ['problems', `Problems ${diags.length}`],
              ['run', 'Run'],
            ] as [Tab, string][]
          ).map(([t, label]) => (
            <button key={t} className={tab === t ? 'on' : ''} onClick={() => setTab(t)} data-tab={t}>
              {label}
            </button>
          ))}
        </nav>
        <div className="panel">
          {tab === 'node' &&
            (selNode && model ? (
              <Inspector
                node={selNode}
                pins={pinsCache.get(selNode.id) ?? { inputs: [], outputs: [] }}
                info={vocab.kinds.get(baseKind(selNode.kind))}
                linked={linkedInputs.get(selNode.id) ?? []}
                diagnostics={diagsByNode.get(selNode.id) ?? []}
                onRename={(to) => renameNode(selNode.id, to)}
                onKind={(k) =>
                  edit((m) => {
                    const n = m.nodes.find((x) => x.id === selNode.id);
                    if (n) n.kind = k;
                    return m;
                  })
                }
                onProp={(name, v) =>
                  edit((m) => {
                    const n = m.nodes.find((x) => x.id === selNode.id);
                    if (!n) return null;
                    const props = { ...n.props };
                    if (v === undefined) delete props[name];
                    else props[name] = v;
                    n.props = props;
                    return m;
                  })
                }
                onComment={(c) =>
                  edit((m) => {
                    const n = m.nodes.find((x) => x.id === selNode.id);
                    const text = c
                      .split('\n')
                      .map((l) => l.trimEnd())
                      .filter((l) => l !== '')
                      .map((l) => `// ${l}`)
                      .join('\n');
                    if (!n || (n.comment ?? '') === text) return null;
                    n.comment = text;
                    return m;
                  })
                }
                onDelete={() => deleteNodes([selNode.id])}
              />
            ) : (
              <div className="hint">
                Select a node to edit it. Drag kinds from the palette, or double-click the canvas to search. Connect pins by
                dragging; Ctrl+S saves.
              </div>
            ))}
          {tab === 'vars' && model && (
            <Variables
              model={model}
              onAdd={addVar}
              onRename={renameVar}
              onType={(name, type) =>
                edit((m) => {
                  const v = m.vars.find((x) => x.name === name);
                  if (!v || v.type === type) return null;
                  v.type = type;
                  const d: Record<string, Lit> = { bool: false, int: 0, float: new RawNum('0.0'), string: '', vec3: [0, 0, 0], entity: '' };
                  v.default = d[type] ?? 0;
                  return m;
                })
              }
              onDefault={(name, value) =>
                edit((m) => {
                  const v = m.vars.find((x) => x.name === name);
                  if (!v) return null;
                  v.default = value;
                  return m;
                })
              }
            />
          )}
          {tab === 'problems' && <Problems diagnostics={diags} onSelect={focusNode} />}
          {tab === 'run' && model && <Runs graph={model.graph} onSelect={setExecuted} />}
        </div>
      </aside>
    </div>
  );
}
