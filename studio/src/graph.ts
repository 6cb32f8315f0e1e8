// The graph as the page edits it: pins of a node, the compiler's link rules, families and type
// colours, fresh node ids, and the automatic layout of nodes without a position.
import dagre from '@dagrejs/dagre';
import type { KindInfo, Lit, Model, ModelNode, PaletteEntry, Pin, PinMap } from './api';

export interface NodePins {
  inputs: Pin[];
  outputs: Pin[];
}

/** `var.get steps` → `var.get`; `event custom::hello` → `event custom`; animseq events stay whole. */
export function baseKind(kind: string): string {
  if (kind.startsWith('event ')) {
    const s = kind.slice(6);
    if (s.startsWith('custom::')) return 'event custom';
    return kind;
  }
  const sp = kind.indexOf(' ');
  return sp < 0 ? kind : kind.slice(0, sp);
}

/** The subject after the kind (`steps` of `var.get steps`), if any. */
export function subjectOf(kind: string): string {
  if (kind.startsWith('event ')) return kind.slice(6);
  const sp = kind.indexOf(' ');
  return sp < 0 ? '' : kind.slice(sp + 1);
}

export interface Vocabulary {
  palette: Map<string, PaletteEntry>;
  kinds: Map<string, KindInfo>;
}

/** A node's pins as the server typed them: the compiler's resolution from the last check when
 * it is for this kind, else the palette's form of the kind (`var` for a type the check will
 * tell). The page never resolves pins itself. */
export function pinsOf(node: ModelNode, vocab: Vocabulary, resolved: PinMap, resolvedKinds: Record<string, string>): NodePins {
  const r = resolved[node.id];
  if (r && resolvedKinds[node.id] === node.kind) return r;
  const entry = vocab.palette.get(baseKind(node.kind));
  if (!entry) return EMPTY_PINS;
  return { inputs: entry.inputs, outputs: entry.outputs };
}

export const EMPTY_PINS: NodePins = { inputs: [], outputs: [] };

export function familyOf(kind: string, vocab: Vocabulary): string {
  if (kind.startsWith('event ')) return 'event';
  return vocab.kinds.get(baseKind(kind))?.family ?? 'math';
}

export const TYPE_COLORS: Record<string, string> = {
  exec: '#f4f4f5',
  bool: '#e5484d',
  int: '#2ec4b6',
  float: '#7bd389',
  string: '#e879f9',
  vec3: '#f5c542',
  entity: '#5aa9ff',
  var: '#a1a1aa',
};

export const FAMILY_COLORS: Record<string, string> = {
  event: '#b42318',
  flow: '#52525b',
  math: '#1f6f50',
  anim: '#6d3fc0',
  variable: '#1d5fa8',
};

export function splitRef(r: string): [string, string] {
  const i = r.lastIndexOf('.');
  return i < 0 ? [r, ''] : [r.slice(0, i), r.slice(i + 1)];
}

/** Why the compiler would refuse a link from output `from` to input `to` for its kinds or
 * types (E0305, E0301, E0303/E0304), or null when it accepts it. Mirrors compile/resolve.rs. */
export function refuseLink(
  fromNode: string,
  fromPin: string,
  toNode: string,
  toPin: string,
  pins: (id: string) => NodePins | undefined,
): string | null {
  const fp = pins(fromNode)?.outputs.find((p) => p.name === fromPin);
  const tp = pins(toNode)?.inputs.find((p) => p.name === toPin);
  if (!fp) return `\`${fromNode}\` has no output pin \`${fromPin}\``;
  if (!tp) return `\`${toNode}\` has no input pin \`${toPin}\``;
  const word = (t: string) => (t === 'exec' ? 'exec' : 'data');
  if ((fp.type === 'exec') !== (tp.type === 'exec')) {
    return `cannot link ${word(fp.type)} pin \`${fromNode}.${fromPin}\` to ${word(tp.type)} pin \`${toNode}.${toPin}\``;
  }
  if (fp.type === 'var' || tp.type === 'var') return null; // unknown variable: the check says
  if (fp.type !== tp.type && !(fp.type === 'int' && tp.type === 'float')) {
    return `type mismatch: expected ${tp.type}, found ${fp.type} (\`${fromNode}.${fromPin}\` is ${fp.type}; \`${toNode}.${toPin}\` takes ${tp.type})`;
  }
  if (fromNode === toNode) return `a link from \`${fromNode}\` to itself makes a cycle`;
  return null;
}

/** A fresh node id from a kind: `int.add` → `add`, `add_2`, … */
export function freshId(kind: string, taken: Set<string>): string {
  const base = baseKind(kind);
  let stem = base.startsWith('event') ? subjectOf(kind).split(/[.:]/).pop() || 'event' : base.split('.').pop() || 'node';
  stem = stem.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(stem)) stem = `n_${stem}`;
  if (!taken.has(stem)) return stem;
  for (let i = 2; ; i++) if (!taken.has(`${stem}_${i}`)) return `${stem}_${i}`;
}

export const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The model kind a palette entry adds (with a subject when the kind needs one). */
export function kindToAdd(entry: PaletteEntry, model: Model, vocab: Vocabulary): string {
  const info = vocab.kinds.get(entry.kind);
  if (entry.kind === 'event custom') return 'event custom::my_event';
  switch (info?.subject) {
    case 'variable':
      return `${entry.kind} ${model.vars[0]?.name ?? 'my_var'}`;
    case 'custom_event':
      return `${entry.kind} custom::my_event`;
    case 'expr':
      return `${entry.kind} "a + b"`;
    default:
      return entry.kind;
  }
}

export const NODE_WIDTH = 220;
export const ROW = 22;
export const HEADER = 34;

/** A node's size on the canvas, known without measuring it (NodeView's layout: a 1 px
 * border, the header, one row per pin and 8 px of padding). */
export function nodeSize(kind: 'sinew' | 'reroute', pins: NodePins): { width: number; height: number } {
  if (kind === 'reroute') return { width: 24, height: 24 };
  return { width: NODE_WIDTH, height: nodeHeight(pins) };
}

export function nodeHeight(p: NodePins): number {
  return HEADER + Math.max(p.inputs.length, p.outputs.length, 1) * ROW + 10;
}

/** Positions for nodes without one: a layered layout (dagre) of the whole graph, shifted so it
 * sits beside the placed nodes. Nodes with a position keep theirs. */
export function autoLayout(model: Model, pins: (id: string) => NodePins): Map<string, { x: number; y: number }> {
  const out = new Map<string, { x: number; y: number }>();
  const free = model.nodes.filter((n) => n.x === null || n.y === null);
  if (free.length === 0) return out;
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 30, ranksep: 70, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const freeIds = new Set(free.map((n) => n.id));
  for (const n of free) g.setNode(n.id, { width: NODE_WIDTH, height: nodeHeight(pins(n.id)) });
  for (const l of model.links) {
    const [a] = splitRef(l.from);
    const [b] = splitRef(l.to);
    if (freeIds.has(a) && freeIds.has(b) && a !== b) g.setEdge(a, b);
  }
  dagre.layout(g);
  let dx = 0;
  let dy = 0;
  const placed = model.nodes.filter((n) => n.x !== null && n.y !== null);
  if (placed.length > 0) {
    dy = Math.max(...placed.map((n) => (n.y as number) + nodeHeight(pins(n.id)))) + 80;
    dx = Math.min(...placed.map((n) => n.x as number));
  }
  for (const n of free) {
    const p = g.node(n.id);
    out.set(n.id, { x: Math.round(p.x - p.width / 2 + dx), y: Math.round(p.y - p.height / 2 + dy) });
  }
  return out;
}

export function litText(v: Lit | undefined): string {
  if (v === undefined) return '';
  if (Array.isArray(v)) return `(${v.map(String).join(', ')})`;
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

/** An asset's path as people read it: relative to the assets folder when the path names one
 * (the catalog gives paths as the server was started with them). */
export function shortFile(f: string): string {
  const i = f.lastIndexOf('/assets/');
  if (i >= 0) return f.slice(i + 8);
  return f.startsWith('assets/') ? f.slice(7) : f;
}
