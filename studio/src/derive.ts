// Selectors: what the canvas and panels draw, derived from the store. Each one recomputes
// only when the parts of the state it reads change identity, and the per-node and per-wire
// objects are reused while their inputs are the same (React Flow then skips them), so an edit
// of one node rebuilds one node. No effect copies state into state, no JSON cache keys.
import type { Diagnostic, Model, ModelLink, ModelNode, PaletteEntry } from './api';
import { EMPTY_PINS, baseKind, familyOf, nodeSize, pinsOf, shortFile, splitRef, type NodePins } from './graph';
import { linkId, type Pos } from './edits';
import type { StudioState } from './store';
import type { NodeData, SinewNode } from './NodeView';
import type { SinewWire } from './WireView';
import { DEFAULT_BOX_COLOR, type BoxNode } from './BoxView';

/** `next`, or `prev` when it holds the same elements (React Flow then has nothing to adopt:
 * a new array makes it walk every node and wake every node's and wire's subscription). */
function stable<T>(prev: T[] | null, next: T[]): T[] {
  return prev && prev.length === next.length && prev.every((x, i) => x === next[i]) ? prev : next;
}

/** Memoizes `f` on the identity of the values `deps` picks from the state. */
function memo<T>(deps: (s: StudioState) => unknown[], f: (s: StudioState) => T): (s: StudioState) => T {
  let last: unknown[] | null = null;
  let value: T;
  return (s) => {
    const d = deps(s);
    if (!last || d.length !== last.length || d.some((x, i) => x !== (last as unknown[])[i])) {
      last = d;
      value = f(s);
    }
    return value;
  };
}

export const selectPins = memo(
  (s) => [s.model?.nodes, s.vocab, s.pins, s.pinKinds],
  (s) => {
    const m = new Map<string, NodePins>();
    for (const n of s.model?.nodes ?? []) m.set(n.id, pinsOf(n, s.vocab, s.pins, s.pinKinds));
    return m;
  },
);

const sameDiag = (a: Diagnostic, b: Diagnostic) =>
  a.severity === b.severity && a.code === b.code && a.message === b.message && (a.notes ?? []).join("\n") === (b.notes ?? []).join("\n");

/** Each node's diagnostics; a node whose badge would read the same as after the last check
 * keeps its array (every check answers new objects; only nodes whose problems changed are
 * drawn again). */
export const selectDiagsByNode = (() => {
  let last = new Map<string, Diagnostic[]>();
  return memo(
    (s) => [s.diags],
    (s) => {
      const m = new Map<string, Diagnostic[]>();
      for (const d of s.diags) {
        if (!d.node) continue;
        const l = m.get(d.node);
        if (l) l.push(d);
        else m.set(d.node, [d]);
      }
      for (const [id, l] of m) {
        const o = last.get(id);
        if (o && o.length === l.length && o.every((d, i) => sameDiag(d, l[i]))) m.set(id, o);
      }
      last = m;
      return m;
    },
  );
})();

/** For each node that ran in the selected record: its places in the run order. */
export const selectOrder = memo(
  (s) => [s.executed, s.model?.graph, s.model?.nodes],
  (s) => {
    const m = new Map<string, number[]>();
    const model = s.model;
    if (!s.executed || !model) return m;
    let i = 0;
    for (const e of s.executed) {
      if (e.graph !== model.graph) continue;
      // The event node that started the handler comes first, whether or not it ran code.
      const start = e.event ? model.nodes.find((n) => n.kind === `event ${e.event}`)?.id : undefined;
      const seq = start && e.nodes[0] !== start ? [start, ...e.nodes] : e.nodes;
      for (const n of seq) m.set(n, [...(m.get(n) ?? []), ++i]);
    }
    return m;
  },
);

export const selectLinkedInputs = memo(
  (s) => [s.model?.links],
  (s) => {
    const m = new Map<string, string[]>();
    for (const l of s.model?.links ?? []) {
      const [n, p] = splitRef(l.to);
      m.set(n, [...(m.get(n) ?? []), p]);
    }
    return m;
  },
);

/** Catalog events by kind (`event animseq::S.N`): the `.animseq` each comes from. */
export const selectEventFiles = memo(
  (s) => [s.catalog],
  (s) => new Map((s.catalog?.events ?? []).map((e) => [`event ${e.id}`, shortFile(e.file)])),
);

/** The title people read on a node (an event's display name) and a subtitle. */
export function titleOf(n: ModelNode, palette: Map<string, PaletteEntry>, files: Map<string, string>): { title: string; subtitle: string } {
  if (n.kind.startsWith('event animseq::')) {
    const e = palette.get(n.kind);
    if (e) return { title: e.name, subtitle: files.get(n.kind) ?? n.kind };
    return { title: n.id, subtitle: n.kind };
  }
  return { title: n.id, subtitle: n.kind };
}

function positionOf(n: ModelNode, layout: Map<string, Pos>): Pos {
  return n.x !== null && n.y !== null ? { x: n.x, y: n.y } : layout.get(n.id) ?? { x: 0, y: 0 };
}

interface NodeCacheEntry {
  inputs: unknown[];
  data: NodeData;
}

const sameArr = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function makeNodeSelector() {
  const dataCache = new Map<string, NodeCacheEntry>();
  const nodeCache = new Map<string, { inputs: unknown[]; node: SinewNode }>();
  const boxCache = new Map<string, { inputs: unknown[]; node: BoxNode }>();
  let last: SinewNode[] | null = null;
  return memo(
    (s) => [s.model, s.vocab, s.pins, s.pinKinds, s.diags, s.executed, s.catalog, s.layout, s.selection, s.measured, s.drag],
    (s) => {
      const model = s.model;
      if (!model) return [] as SinewNode[];
      const pins = selectPins(s);
      const diags = selectDiagsByNode(s);
      const order = selectOrder(s);
      const linked = selectLinkedInputs(s);
      const files = selectEventFiles(s);
      const seen = new Set<string>();
      const out = model.nodes.map((n) => {
        seen.add(n.id);
        const p = pins.get(n.id) ?? EMPTY_PINS;
        const d = diags.get(n.id) ?? NO_DIAGS;
        const ex = (order.get(n.id) ?? []).join(',');
        const li = (linked.get(n.id) ?? []).join(',');
        const family = familyOf(n.kind, s.vocab);
        const t = titleOf(n, s.vocab.palette, files);
        const description = s.vocab.palette.get(n.kind)?.description ?? s.vocab.palette.get(baseKind(n.kind))?.description ?? '';
        let c = dataCache.get(n.id);
        const ci = c?.inputs;
        // Compared field by field (no array per node): an edit walks every node, most unchanged.
        if (!c || !ci || ci[0] !== n || ci[1] !== p || ci[2] !== d || ci[3] !== ex || ci[4] !== li || ci[5] !== family || ci[6] !== t.title || ci[7] !== t.subtitle || ci[8] !== description) {
          const inputs = [n, p, d, ex, li, family, t.title, t.subtitle, description];
          c = {
            inputs,
            data: {
              id: n.id,
              kind: n.kind,
              title: t.title,
              subtitle: t.subtitle,
              description,
              family,
              pins: p,
              props: n.props,
              linkedInputs: li ? li.split(',') : [],
              diagnostics: d,
              executed: ex ? ex.split(',').map(Number) : [],
              comment: n.comment ?? '',
            },
          };
          dataCache.set(n.id, c);
        }
        const pos = s.drag?.[n.id] ?? positionOf(n, s.layout);
        const sel = s.selection.nodes.has(n.id);
        const meas = s.measured[n.id];
        const nc = nodeCache.get(n.id);
        const ni = nc?.inputs;
        if (nc && ni && ni[0] === c.data && ni[1] === pos.x && ni[2] === pos.y && ni[3] === sel && ni[4] === meas) return nc.node;
        const ninputs = [c.data, pos.x, pos.y, sel, meas];
        const type = n.kind === 'reroute' ? 'reroute' : 'sinew';
        // The size is known from the pins (React Flow need not measure a node to place,
        // select or cull it; the far view never lays nodes out at all).
        const size = nodeSize(type, p);
        const node: SinewNode = {
          id: n.id,
          type,
          position: { x: pos.x, y: pos.y },
          width: size.width,
          height: size.height,
          data: c.data,
          selected: sel,
          ...(meas ? { measured: meas } : {}),
        } as SinewNode;
        nodeCache.set(n.id, { inputs: ninputs, node });
        return node;
      });
      for (const id of [...dataCache.keys()]) if (!seen.has(id)) dataCache.delete(id);
      // Comment boxes first: drawn under the nodes.
      const boxes = (model.boxes ?? []).map((b, i) => {
        const id = boxId(i);
        const pos = s.drag?.[id] ?? { x: b.x, y: b.y };
        const size = s.measured[id] ?? { width: b.w, height: b.h };
        const sel = s.selection.boxes.has(i);
        const inputs = [b, pos.x, pos.y, size.width, size.height, sel];
        const bc = boxCache.get(id);
        if (bc && sameArr(bc.inputs, inputs)) return bc.node;
        const node: BoxNode = {
          id,
          type: 'box',
          position: { x: pos.x, y: pos.y },
          data: { index: i, title: b.title, color: b.color ?? DEFAULT_BOX_COLOR },
          width: size.width,
          height: size.height,
          measured: { width: size.width, height: size.height },
          selected: sel,
          dragHandle: '.sn-box-bar',
          draggable: true,
        };
        boxCache.set(id, { inputs, node });
        return node;
      });
      for (const id of [...nodeCache.keys()]) if (!seen.has(id) && boxIndex(id) < 0) nodeCache.delete(id);
      last = stable(last, boxes.length ? [...(boxes as unknown as SinewNode[]), ...out] : out);
      return last;
    },
  );
}
const NO_DIAGS: Diagnostic[] = [];

/** The canvas id of comment box `i` (boxes have no names in the format). */
export const boxId = (i: number) => `box:${i}`;
export const boxIndex = (id: string) => (id.startsWith('box:') ? Number(id.slice(4)) : -1);

export const selectRfNodes = makeNodeSelector();

/** A link's ends and id, read once per link object (an edit keeps untouched links' objects). */
const ends = new WeakMap<ModelLink, { a: string; ap: string; b: string; bp: string; id: string }>();
function endsOf(l: ModelLink) {
  let e = ends.get(l);
  if (!e) {
    const [a, ap] = splitRef(l.from);
    const [b, bp] = splitRef(l.to);
    e = { a, ap, b, bp, id: linkId(l) };
    ends.set(l, e);
  }
  return e;
}

function makeEdgeSelector() {
  const cache = new Map<string, { inputs: unknown[]; edge: SinewWire }>();
  let last: SinewWire[] | null = null;
  return memo(
    (s) => [s.model?.links, s.model?.nodes, s.vocab, s.pins, s.pinKinds, s.executed, s.selection],
    (s) => {
      const model = s.model;
      if (!model) return [] as SinewWire[];
      const pins = selectPins(s);
      const ran = selectOrder(s);
      const seen = new Set<string>();
      const out = model.links.map((l) => {
        const { a, ap, b, bp, id } = endsOf(l);
        const t = pins.get(a)?.outputs.find((p) => p.name === ap)?.type ?? 'var';
        seen.add(id);
        const executed = ran.has(a) && ran.has(b);
        const sel = s.selection.links.has(id);
        const c = cache.get(id);
        // Compared field by field: an edit walks every wire, and most are unchanged.
        if (c && c.inputs[0] === l && c.inputs[1] === t && c.inputs[2] === executed && c.inputs[3] === sel) return c.edge;
        const inputs = [l, t, executed, sel];
        const edge: SinewWire = {
          id,
          source: a,
          sourceHandle: ap,
          target: b,
          targetHandle: bp,
          type: 'wire',
          selected: sel,
          data: { type: t, link: id, executed },
        };
        cache.set(id, { inputs, edge });
        return edge;
      });
      for (const id of [...cache.keys()]) if (!seen.has(id)) cache.delete(id);
      last = stable(last, out);
      return last;
    },
  );
}

export const selectRfEdges = makeEdgeSelector();

/** Nodes whose position the page must choose (no `at`): laid out once per model shape. */
export function unplaced(m: Model | null, layout: Map<string, Pos>): boolean {
  return !!m && m.nodes.some((n) => (n.x === null || n.y === null) && !layout.has(n.id));
}
