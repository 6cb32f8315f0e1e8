// The page's edits as pure functions from a model to the next one. Untouched nodes, links,
// variables and boxes keep their object identity, so the canvas's selectors rebuild only what
// an edit changed. Every function returns null when the edit changes nothing (no undo step).
import { RawNum, type Lit, type Model, type ModelBox, type ModelLink, type ModelNode } from './api';
import { IDENT, baseKind, splitRef, subjectOf } from './graph';

export type Pos = { x: number; y: number };

export const linkId = (l: ModelLink) => `${l.from} -> ${l.to}`;
const nodeOf = (ref: string) => splitRef(ref)[0];

export const TYPE_DEFAULTS: Record<string, Lit> = {
  bool: false,
  int: 0,
  float: new RawNum('0.0'),
  string: '',
  vec3: [0, 0, 0],
  entity: '',
};

export function updateNode(m: Model, id: string, f: (n: ModelNode) => ModelNode | null): Model | null {
  const i = m.nodes.findIndex((n) => n.id === id);
  if (i < 0) return null;
  const next = f(m.nodes[i]);
  if (!next || next === m.nodes[i]) return null;
  const nodes = m.nodes.slice();
  nodes[i] = next;
  return { ...m, nodes };
}

export function addNodes(m: Model, nodes: ModelNode[], links: ModelLink[] = []): Model | null {
  if (nodes.length === 0 && links.length === 0) return null;
  return { ...m, nodes: [...m.nodes, ...nodes], links: [...m.links, ...links] };
}

/** Removes nodes (with every wire into or out of them) and wires, as one edit. */
export function removeElements(m: Model, nodeIds: Iterable<string>, linkIds: Iterable<string> = []): Model | null {
  const nodes = new Set(nodeIds);
  const links = new Set(linkIds);
  if (nodes.size === 0 && links.size === 0) return null;
  const keptNodes = m.nodes.filter((n) => !nodes.has(n.id));
  const keptLinks = m.links.filter((l) => !links.has(linkId(l)) && !nodes.has(nodeOf(l.from)) && !nodes.has(nodeOf(l.to)));
  if (keptNodes.length === m.nodes.length && keptLinks.length === m.links.length) return null;
  return { ...m, nodes: keptNodes, links: keptLinks };
}

/** Cuts every wire at one pin (`Alt`+click). */
export function cutPin(m: Model, pin: string): Model | null {
  const links = m.links.filter((l) => l.from !== pin && l.to !== pin);
  return links.length === m.links.length ? null : { ...m, links };
}

/** Links output `from` to input `to`. A data input takes one link and an exec output leads to
 * one node: a new link replaces the old one, as designers expect. */
export function connect(m: Model, from: string, to: string, execFrom: boolean): Model | null {
  if (m.links.some((l) => l.from === from && l.to === to)) return null;
  const links = m.links.filter((l) => (execFrom ? l.from !== from : l.to !== to));
  links.push({ from, to, comment: '', line_comment: null });
  return { ...m, links };
}

export function moveNodes(m: Model, moved: Map<string, Pos>, boxes?: Map<number, Pos>): Model | null {
  let changed = false;
  const nodes = m.nodes.map((n) => {
    const p = moved.get(n.id);
    if (!p) return n;
    const x = Math.round(p.x);
    const y = Math.round(p.y);
    if (n.x === x && n.y === y) return n;
    changed = true;
    return { ...n, x, y };
  });
  let bs = m.boxes;
  if (boxes && m.boxes) {
    bs = m.boxes.map((b, i) => {
      const p = boxes.get(i);
      if (!p) return b;
      const x = Math.round(p.x);
      const y = Math.round(p.y);
      if (b.x === x && b.y === y) return b;
      changed = true;
      return { ...b, x, y };
    });
  }
  return changed ? { ...m, nodes, boxes: bs } : null;
}

export function renameNode(m: Model, from: string, to: string): Model | string {
  if (!IDENT.test(to)) return `\`${to}\` is not a node name (letters, digits, _)`;
  if (m.nodes.some((n) => n.id === to)) return `a node \`${to}\` exists`;
  const fix = (r: string) => {
    const [a, p] = splitRef(r);
    return a === from ? `${to}.${p}` : r;
  };
  const next = updateNode(m, from, (n) => ({ ...n, id: to }));
  if (!next) return `no node \`${from}\``;
  return {
    ...next,
    links: next.links.map((l) => (nodeOf(l.from) === from || nodeOf(l.to) === from ? { ...l, from: fix(l.from), to: fix(l.to) } : l)),
  };
}

export function setKind(m: Model, id: string, kind: string): Model | null {
  return updateNode(m, id, (n) => (n.kind === kind ? null : { ...n, kind }));
}

export function setProp(m: Model, id: string, name: string, v: Lit | undefined): Model | null {
  return updateNode(m, id, (n) => {
    const props = { ...n.props };
    if (v === undefined) delete props[name];
    else props[name] = v;
    return { ...n, props };
  });
}

export function setComment(m: Model, id: string, c: string): Model | null {
  const text = c
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .map((l) => `// ${l}`)
    .join('\n');
  return updateNode(m, id, (n) => ((n.comment ?? '') === text ? null : { ...n, comment: text }));
}

export function addVar(m: Model, name: string, type: string): Model | string {
  if (!IDENT.test(name)) return `\`${name}\` is not a variable name`;
  if (m.vars.some((v) => v.name === name)) return `a variable \`${name}\` exists`;
  return { ...m, vars: [...m.vars, { name, type, default: TYPE_DEFAULTS[type] ?? 0, comment: '', line_comment: null }] };
}

export function renameVar(m: Model, from: string, to: string): Model | string {
  if (!IDENT.test(to)) return `\`${to}\` is not a variable name`;
  if (m.vars.some((v) => v.name === to)) return `a variable \`${to}\` exists`;
  if (!m.vars.some((v) => v.name === from)) return `no variable \`${from}\``;
  return {
    ...m,
    vars: m.vars.map((v) => (v.name === from ? { ...v, name: to } : v)),
    nodes: m.nodes.map((n) => {
      const b = baseKind(n.kind);
      return (b === 'var.get' || b === 'var.set') && subjectOf(n.kind) === from ? { ...n, kind: `${b} ${to}` } : n;
    }),
  };
}

export function setVarType(m: Model, name: string, type: string): Model | null {
  const v = m.vars.find((x) => x.name === name);
  if (!v || v.type === type) return null;
  return { ...m, vars: m.vars.map((x) => (x === v ? { ...x, type, default: TYPE_DEFAULTS[type] ?? 0 } : x)) };
}

export function setVarDefault(m: Model, name: string, value: Lit): Model | null {
  const v = m.vars.find((x) => x.name === name);
  if (!v) return null;
  return { ...m, vars: m.vars.map((x) => (x === v ? { ...x, default: value } : x)) };
}

// ---- comment boxes ----

export function addBox(m: Model, b: ModelBox): Model {
  return { ...m, boxes: [...(m.boxes ?? []), b] };
}

export function updateBox(m: Model, i: number, f: (b: ModelBox) => ModelBox | null): Model | null {
  const bs = m.boxes ?? [];
  if (!bs[i]) return null;
  const next = f(bs[i]);
  if (!next) return null;
  const boxes = bs.slice();
  boxes[i] = next;
  return { ...m, boxes };
}

export function removeBoxes(m: Model, idx: Set<number>): Model | null {
  if (idx.size === 0 || !m.boxes) return null;
  return { ...m, boxes: m.boxes.filter((_, i) => !idx.has(i)) };
}

/** A reroute node in the middle of a wire: `a -> b` becomes `a -> r.in`, `r.out -> b`. */
export function insertReroute(m: Model, link: string, id: string, at: Pos): Model | null {
  const i = m.links.findIndex((l) => linkId(l) === link);
  if (i < 0) return null;
  const l = m.links[i];
  const links = m.links.slice();
  links.splice(i, 1, { from: l.from, to: `${id}.in`, comment: l.comment ?? '', line_comment: null }, { from: `${id}.out`, to: l.to, comment: '', line_comment: null });
  const node: ModelNode = { id, kind: 'reroute', x: Math.round(at.x), y: Math.round(at.y), props: {}, comment: '', line_comment: null };
  return { ...m, nodes: [...m.nodes, node], links };
}
