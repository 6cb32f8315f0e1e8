// The page's one store (zustand, as React Flow's docs recommend): the open model with its undo
// history, the server's answers about it (diagnostics, resolved pins, version), the vocabulary
// (palette, kinds, catalog), the canvas's view state (selection, measurements, a drag in
// progress) and the run shown in the debugger. Components read it through selectors
// (`derive.ts`) and change it only through the named actions below; every user action that
// changes the model is exactly one `commit`, so exactly one undo step.
import { create } from 'zustand';
import type { Catalog, Diagnostic, Executed, KindInfo, Model, PaletteEntry, PinMap, RunDoc } from './api';
import type { Vocabulary } from './graph';
import type { Pos } from './edits';
import type { PaletteChange } from './Palette';

export interface GraphInfo {
  path: string;
  graph?: string | null;
  errors: number;
  warnings: number;
}

export type Tab = 'node' | 'vars' | 'problems' | 'run';

export interface Toast {
  text: string;
  kind: string;
  at: number;
}

export interface Search {
  /** Screen position of the search box; flow position where the node goes. */
  x: number;
  y: number;
  flow: Pos;
  query: string;
  /** Set when the search was opened by dropping a wire on empty canvas: only kinds with a
   * pin that accepts it are offered, and the new node is wired in. */
  wire?: { node: string; pin: string; type: string; output: boolean };
}

export interface RunValues {
  graph: string;
  entity: string | null;
  nodes: Record<string, { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }>;
  vars_before?: Record<string, unknown>;
  vars_after?: Record<string, unknown>;
}

export interface Selection {
  nodes: ReadonlySet<string>;
  links: ReadonlySet<string>;
  boxes: ReadonlySet<number>;
}

const NONE: Selection = { nodes: new Set(), links: new Set(), boxes: new Set() };
const HISTORY_LIMIT = 500;

export interface StudioState {
  // vocabulary (from the server)
  paletteEntries: PaletteEntry[];
  vocab: Vocabulary;
  catalog: Catalog | null;
  paletteChange: PaletteChange | null;
  graphs: GraphInfo[];
  // the open document
  doc: { path: string; version: string | null } | null;
  model: Model | null;
  past: Model[];
  future: Model[];
  dirty: boolean;
  diags: Diagnostic[];
  pins: PinMap;
  pinKinds: Record<string, string>;
  checkedOnce: boolean;
  layout: Map<string, Pos>;
  // the canvas
  selection: Selection;
  measured: Record<string, { width: number; height: number }>;
  drag: Record<string, Pos> | null;
  needsFit: boolean;
  // the debugger
  run: (RunDoc & { scene: string }) | null;
  executed: Executed[] | null;
  values: RunValues[] | null;
  record: Record<string, unknown> | null;
  // the rest of the page
  tab: Tab;
  search: Search | null;
  toast: Toast | null;
  conflict: { message: string; version: string | null } | null;
  diskChanged: boolean;
  /** The open file no longer parses on disk (its diagnostics), while the page keeps the model. */
  diskBroken: Diagnostic[] | null;
  busy: string | null;

  // ---- named actions ----
  vocabularyLoaded: (p: PaletteEntry[], k: KindInfo[], c: Catalog) => void;
  paletteChanged: (c: PaletteChange) => void;
  graphsListed: (g: GraphInfo[]) => void;
  opened: (doc: { path: string; version: string | null }, model: Model, diags: Diagnostic[], pins: PinMap) => void;
  created: (path: string, model: Model) => void;
  /** One user action: the next model, or null when nothing changed. */
  commit: (next: Model | null, select?: Partial<Selection>) => boolean;
  undo: () => boolean;
  redo: () => boolean;
  checked: (forModel: Model, diags: Diagnostic[], pins: PinMap) => void;
  diagnosticsArrived: (d: Diagnostic[]) => void;
  saved: (path: string, version: string, forModel: Model, diags: Diagnostic[]) => void;
  conflicted: (c: { message: string; version: string | null } | null) => void;
  diskChangedWhileEditing: (b: boolean) => void;
  diskNoLongerParses: (d: Diagnostic[] | null) => void;
  laidOut: (l: Map<string, Pos>) => void;
  fitted: () => void;
  select: (s: Partial<Selection>, add?: boolean) => void;
  selectAll: () => void;
  measuredNodes: (m: Record<string, { width: number; height: number }>) => void;
  dragging: (d: Record<string, Pos> | null) => void;
  runLoaded: (r: (RunDoc & { scene: string }) | null) => void;
  ran: (executed: Executed[] | null, values: RunValues[] | null, record: Record<string, unknown> | null) => void;
  showTab: (t: Tab) => void;
  openSearch: (s: Search | null) => void;
  say: (text: string, kind?: string) => void;
  clearToast: () => void;
  setBusy: (b: string | null) => void;
}

export const useStudio = create<StudioState>()((set, get) => ({
  paletteEntries: [],
  vocab: { palette: new Map(), kinds: new Map() },
  catalog: null,
  paletteChange: null,
  graphs: [],
  doc: null,
  model: null,
  past: [],
  future: [],
  dirty: false,
  diags: [],
  pins: {},
  pinKinds: {},
  checkedOnce: false,
  layout: new Map(),
  selection: NONE,
  measured: {},
  drag: null,
  needsFit: false,
  run: null,
  executed: null,
  values: null,
  record: null,
  tab: 'node',
  search: null,
  toast: null,
  conflict: null,
  diskChanged: false,
  diskBroken: null,
  busy: null,

  vocabularyLoaded: (p, k, c) =>
    set({
      paletteEntries: p,
      catalog: c,
      vocab: { palette: new Map(p.map((e) => [e.kind, e])), kinds: new Map(k.map((x) => [x.kind, x])) },
    }),
  paletteChanged: (c) => set({ paletteChange: c }),
  graphsListed: (graphs) => set({ graphs }),
  opened: (doc, model, diags, pins) =>
    set({
      doc,
      model,
      past: [],
      future: [],
      dirty: false,
      diags,
      pins,
      pinKinds: Object.fromEntries(model.nodes.map((n) => [n.id, n.kind])),
      checkedOnce: true,
      layout: new Map(),
      selection: NONE,
      measured: {},
      drag: null,
      needsFit: true,
      executed: null,
      values: null,
      record: null,
      conflict: null,
      diskChanged: false,
      diskBroken: null,
    }),
  created: (path, model) =>
    set({
      doc: { path, version: null },
      model,
      past: [],
      future: [],
      dirty: true,
      diags: [],
      pins: {},
      pinKinds: {},
      layout: new Map(),
      selection: NONE,
      measured: {},
      executed: null,
      values: null,
      conflict: null,
      diskChanged: false,
      diskBroken: null,
    }),
  commit: (next, select) => {
    const cur = get().model;
    if (!cur || !next || next === cur) return false;
    set((s) => ({
      past: [...s.past, cur].slice(-HISTORY_LIMIT),
      model: next,
      future: [],
      dirty: true,
      selection: select ? { ...NONE, ...select } : pruneSelection(s.selection, next),
      measured: pruneMeasured(s.measured, next),
    }));
    return true;
  },
  undo: () => {
    const { past, model } = get();
    if (past.length === 0 || !model) return false;
    const prev = past[past.length - 1];
    set((s) => ({
      past: past.slice(0, -1),
      model: prev,
      future: [model, ...s.future],
      dirty: true,
      selection: pruneSelection(s.selection, prev),
      measured: pruneMeasured(s.measured, prev),
    }));
    return true;
  },
  redo: () => {
    const { future, model } = get();
    if (future.length === 0 || !model) return false;
    const next = future[0];
    set((s) => ({
      past: [...s.past, model],
      model: next,
      future: future.slice(1),
      dirty: true,
      selection: pruneSelection(s.selection, next),
      measured: pruneMeasured(s.measured, next),
    }));
    return true;
  },
  checked: (forModel, diags, pins) => {
    // A node whose kind stops resolving (its event was renamed on disk) keeps the pins it
    // had, so its wires stay drawn while its badge says what is wrong.
    const { pins: old, pinKinds: oldKinds } = get();
    const merged: PinMap = { ...pins };
    const kinds: Record<string, string> = {};
    for (const n of forModel.nodes) {
      kinds[n.id] = n.kind;
      const p = pins[n.id];
      if ((!p || (p.inputs.length === 0 && p.outputs.length === 0)) && old[n.id] && oldKinds[n.id] === n.kind) {
        merged[n.id] = old[n.id];
      } else if (p && old[n.id] && samePins(p, old[n.id])) {
        // The same pins as before keep their object: the node is not drawn again.
        merged[n.id] = old[n.id];
      }
    }
    set({ diags, pins: merged, pinKinds: kinds, checkedOnce: true });
  },
  diagnosticsArrived: (diags) => set({ diags }),
  saved: (path, version, forModel, diags) =>
    set((s) => ({
      doc: { path, version },
      dirty: s.model === forModel ? false : s.dirty,
      diags,
      conflict: null,
      diskChanged: false,
      diskBroken: null,
    })),
  conflicted: (conflict) => set({ conflict }),
  diskChangedWhileEditing: (diskChanged) => set({ diskChanged }),
  diskNoLongerParses: (diskBroken) => set({ diskBroken }),
  laidOut: (layout) => set({ layout }),
  fitted: () => set({ needsFit: false }),
  select: (s, add) =>
    set((st) => {
      if (!add) return { selection: { ...NONE, ...s } };
      const u = <T>(a: ReadonlySet<T>, b?: ReadonlySet<T>) => (b ? new Set([...a, ...b]) : a);
      return { selection: { nodes: u(st.selection.nodes, s.nodes), links: u(st.selection.links, s.links), boxes: u(st.selection.boxes, s.boxes) } };
    }),
  selectAll: () =>
    set((s) => ({ selection: { ...NONE, nodes: new Set(s.model?.nodes.map((n) => n.id) ?? []), boxes: new Set((s.model?.boxes ?? []).map((_, i) => i)) } })),
  measuredNodes: (m) => set((s) => ({ measured: { ...s.measured, ...m } })),
  dragging: (drag) => set({ drag }),
  runLoaded: (run) => set({ run }),
  ran: (executed, values, record) => set({ executed, values, record }),
  showTab: (tab) => set({ tab }),
  openSearch: (search) => set({ search }),
  say: (text, kind = 'info') => set({ toast: { text, kind, at: Date.now() } }),
  clearToast: () => set({ toast: null }),
  setBusy: (busy) => set({ busy }),
}));

type Pins = PinMap[string];
const samePin = (a: Pins['inputs'][number], b: Pins['inputs'][number]) =>
  a.name === b.name && a.type === b.type && a.default === b.default && a.description === b.description;
/** Whether two answers give a node the same pins (a check answers new objects every time). */
export function samePins(a: Pins, b: Pins): boolean {
  return (
    a.inputs.length === b.inputs.length &&
    a.outputs.length === b.outputs.length &&
    a.inputs.every((p, i) => samePin(p, b.inputs[i])) &&
    a.outputs.every((p, i) => samePin(p, b.outputs[i]))
  );
}

/** Measurements of nodes the model still has: a node removed and brought back (undo) is
 * measured afresh, so React Flow finds its handles and draws its wires. */
function pruneMeasured(measured: Record<string, { width: number; height: number }>, m: Model) {
  const ids = new Set(m.nodes.map((n) => n.id));
  const keys = Object.keys(measured);
  if (keys.every((k) => ids.has(k) || k.startsWith('box:'))) return measured;
  return Object.fromEntries(keys.filter((k) => ids.has(k) || k.startsWith('box:')).map((k) => [k, measured[k]]));
}

/** The selection without what the model no longer has. */
function pruneSelection(s: Selection, m: Model): Selection {
  if (s.nodes.size === 0 && s.links.size === 0 && s.boxes.size === 0) return s;
  const ids = new Set(m.nodes.map((n) => n.id));
  const links = new Set(m.links.map((l) => `${l.from} -> ${l.to}`));
  const boxes = m.boxes?.length ?? 0;
  return {
    nodes: new Set([...s.nodes].filter((n) => ids.has(n))),
    links: new Set([...s.links].filter((l) => links.has(l))),
    boxes: new Set([...s.boxes].filter((b) => b < boxes)),
  };
}
