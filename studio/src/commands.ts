// Editor commands: each reads the store, builds the next model from `edits.ts` and commits it
// once (one undo step), whatever it touches — a node added and wired in, a paste, a cut.
import type { ModelNode, PaletteEntry, Pin } from './api';
import { freshId, kindToAdd, splitRef } from './graph';
import { addBox, addNodes, connect, insertReroute, linkId, removeBoxes, removeElements, type Pos } from './edits';
import { useStudio, type Search } from './store';
import { selectPins } from './derive';

const st = () => useStudio.getState();

/** Can data of type `from` flow into a pin of type `to`? (`int` feeds `float`, as in the
 * compiler; `var` is a variable's type the check has not told yet.) */
export function accepts(from: string, to: string): boolean {
  if ((from === 'exec') !== (to === 'exec')) return false;
  return from === to || from === 'var' || to === 'var' || (from === 'int' && to === 'float');
}

/** The pin of `entry` a wire dragged from `wire` would connect to, or null. */
export function compatiblePin(entry: PaletteEntry, wire: NonNullable<Search['wire']>): Pin | null {
  if (wire.output) return entry.inputs.find((p) => accepts(wire.type, p.type)) ?? null;
  return entry.outputs.find((p) => accepts(p.type, wire.type)) ?? null;
}

/** Adds a node of palette kind `kind` at `at` (wired to `wire` when the search came from a
 * dropped wire), selects it: one undo step. */
export function addNodeAt(kind: string, at: Pos, wire?: Search['wire']) {
  const s = st();
  const m = s.model;
  const entry = s.vocab.palette.get(kind);
  if (!m || !entry) return;
  const taken = new Set(m.nodes.map((n) => n.id));
  const k = kindToAdd(entry, m, s.vocab);
  const id = freshId(k, taken);
  const node: ModelNode = { id, kind: k, x: Math.round(at.x), y: Math.round(at.y), props: {}, comment: '', line_comment: null };
  let next = addNodes(m, [node]);
  if (next && wire) {
    const pin = compatiblePin(entry, wire);
    if (pin) {
      const exec = wire.type === 'exec';
      const wired = wire.output ? connect(next, `${wire.node}.${wire.pin}`, `${id}.${pin.name}`, exec) : connect(next, `${id}.${pin.name}`, `${wire.node}.${wire.pin}`, pin.type === 'exec');
      next = wired ?? next;
    }
  }
  s.commit(next, { nodes: new Set([id]) });
  s.showTab('node');
}

/** Deletes the selection: nodes with their wires, wires, boxes — one undo step. */
export function deleteSelection() {
  const s = st();
  if (!s.model) return;
  const { nodes, links, boxes } = s.selection;
  let next = removeElements(s.model, nodes, links) ?? s.model;
  next = removeBoxes(next, new Set(boxes)) ?? next;
  s.commit(next === s.model ? null : next);
}

/** A comment box around the selected nodes (`C`). */
export function boxAroundSelection() {
  const s = st();
  const m = s.model;
  if (!m || s.selection.nodes.size === 0) return;
  const nodes = m.nodes.filter((n) => s.selection.nodes.has(n.id));
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const n of nodes) {
    const p = n.x !== null && n.y !== null ? { x: n.x, y: n.y } : s.layout.get(n.id) ?? { x: 0, y: 0 };
    const d = s.measured[n.id] ?? { width: 220, height: 80 };
    x0 = Math.min(x0, p.x);
    y0 = Math.min(y0, p.y);
    x1 = Math.max(x1, p.x + d.width);
    y1 = Math.max(y1, p.y + d.height);
  }
  const pad = 30;
  const box = {
    title: 'Comment',
    x: Math.round(x0 - pad),
    y: Math.round(y0 - pad - 24),
    w: Math.round(x1 - x0 + 2 * pad),
    h: Math.round(y1 - y0 + 2 * pad + 24),
    color: '#3d5a80',
    comment: '',
    line_comment: null,
  };
  const next = addBox(m, box);
  s.commit(next, { boxes: new Set([(next.boxes?.length ?? 1) - 1]) });
}

/** A reroute node in the middle of a wire (double-click on it). */
export function rerouteWire(link: string, at: Pos) {
  const s = st();
  const m = s.model;
  if (!m) return;
  const id = freshId('reroute', new Set(m.nodes.map((n) => n.id)));
  s.commit(insertReroute(m, link, id, { x: at.x - 12, y: at.y - 12 }), { nodes: new Set([id]) });
}

/** Cuts every wire at a pin (`Alt`+click). */
export function cutWiresAt(pin: string) {
  const s = st();
  const m = s.model;
  if (!m) return;
  const [node, name] = splitRef(pin);
  const links = m.links.filter((l) => l.from === `${node}.${name}` || l.to === `${node}.${name}`).map(linkId);
  s.commit(removeElements(m, [], links));
}

/** Type of a pin on the canvas. */
export function pinType(node: string, pin: string, output: boolean): string | undefined {
  const p = selectPins(st()).get(node);
  return (output ? p?.outputs : p?.inputs)?.find((x) => x.name === pin)?.type;
}
