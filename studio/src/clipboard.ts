// Copy, cut, paste and duplicate through the system clipboard as `.bpg` text (graph.md's
// syntax): the selected nodes, the wires between them, the variables they name and the
// selected comment boxes. Pasted text is read by the server (`POST /api/parse` answers its
// model); the page merges it with fresh ids at the cursor. Text that is
// not a graph, or too big, gets a message and changes nothing.
import { ApiError, RawNum, api, type Lit, type Model, type ModelBox, type ModelLink, type ModelNode } from './api';
import { splitRef } from './graph';
import { linkId, type Pos } from './edits';
import { useStudio } from './store';

/** Most nodes one paste adds (docs/limits.md). */
export const MAX_PASTE_NODES = 10_000;
/** Most bytes of pasted text the page sends to be read (the server's body limit is 8 MiB). */
export const MAX_PASTE_BYTES = 4 * 1024 * 1024;

const st = () => useStudio.getState();

function str(s: string): string {
  // graph.md: double quotes with \" \\ \n escapes; strings do not span lines.
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '')}"`;
}

export function literal(v: Lit): string {
  if (v instanceof RawNum) return v.text;
  if (Array.isArray(v)) return `(${v.map((x) => (x instanceof RawNum ? x.text : String(x))).join(', ')})`;
  if (typeof v === 'string') return str(v);
  return String(v);
}

function comment(out: string[], c: string | undefined) {
  for (const l of (c ?? '').split('\n')) if (l.trim()) out.push(l.startsWith('//') ? l : `// ${l}`);
}

/** The `.bpg` text of `nodes` (with the wires between them, the variables they use, and
 * `boxes`) as a graph of its own. */
export function toBpg(m: Model, ids: ReadonlySet<string>, boxes: ModelBox[] = []): string {
  const nodes = m.nodes.filter((n) => ids.has(n.id));
  const links = m.links.filter((l) => ids.has(splitRef(l.from)[0]) && ids.has(splitRef(l.to)[0]));
  const used = new Set(nodes.map((n) => (/^var\.(get|set) /.test(n.kind) ? n.kind.split(' ')[1] : '')));
  const vars = m.vars.filter((v) => used.has(v.name));
  const out = [`graph ${m.graph}`, ''];
  for (const v of vars) out.push(`var ${v.name}: ${v.type} = ${literal(v.default)}`);
  if (vars.length) out.push('');
  for (const b of boxes) out.push(`box ${str(b.title)} at (${b.x}, ${b.y}) size (${b.w}, ${b.h})${b.color ? ` { color = ${str(b.color)} }` : ''}`);
  if (boxes.length) out.push('');
  for (const n of nodes) {
    comment(out, n.comment);
    const props = Object.entries(n.props);
    const args = props.length ? ` { ${props.map(([k, v]) => `${k} = ${literal(v)}`).join(', ')} }` : '';
    const at = n.x !== null && n.y !== null ? ` at (${n.x}, ${n.y})` : '';
    out.push(`node ${n.id} = ${n.kind}${args}${at}`);
  }
  if (links.length) out.push('');
  for (const l of links) out.push(`${l.from} -> ${l.to}`);
  return out.join('\n') + '\n';
}

export function selectionText(): string | null {
  const { model, selection } = st();
  if (!model || (selection.nodes.size === 0 && selection.boxes.size === 0)) return null;
  const boxes = (model.boxes ?? []).filter((_, i) => selection.boxes.has(i));
  return toBpg(model, selection.nodes, boxes);
}

function unique(id: string, taken: Set<string>): string {
  if (!taken.has(id)) return id;
  const stem = id.replace(/_\d+$/, '');
  for (let i = 2; ; i++) if (!taken.has(`${stem}_${i}`)) return `${stem}_${i}`;
}

/** `into` with `pasted`'s nodes (fresh ids, their top-left corner at `at`), the wires between
 * them, the variables `into` lacks and the boxes. */
export function merge(into: Model, pasted: Model, at: Pos): { model: Model; ids: string[]; boxes: number[] } {
  const taken = new Set(into.nodes.map((n) => n.id));
  const rename = new Map<string, string>();
  for (const n of pasted.nodes) {
    const id = unique(n.id, taken);
    taken.add(id);
    rename.set(n.id, id);
  }
  const placed = pasted.nodes.filter((n) => n.x !== null && n.y !== null);
  const bx = [...placed.map((n) => n.x as number), ...(pasted.boxes ?? []).map((b) => b.x)];
  const by = [...placed.map((n) => n.y as number), ...(pasted.boxes ?? []).map((b) => b.y)];
  const dx = Math.round(at.x - (bx.length ? Math.min(...bx) : 0));
  const dy = Math.round(at.y - (by.length ? Math.min(...by) : 0));
  const nodes: ModelNode[] = pasted.nodes.map((n) => ({
    ...n,
    id: rename.get(n.id) as string,
    x: n.x !== null ? n.x + dx : Math.round(at.x),
    y: n.y !== null ? n.y + dy : Math.round(at.y),
  }));
  const ref = (r: string) => {
    const [a, p] = splitRef(r);
    return `${rename.get(a) ?? a}.${p}`;
  };
  const links: ModelLink[] = pasted.links
    .filter((l) => rename.has(splitRef(l.from)[0]) && rename.has(splitRef(l.to)[0]))
    .map((l) => ({ ...l, from: ref(l.from), to: ref(l.to) }));
  const have = new Set(into.links.map(linkId));
  const vars = pasted.vars.filter((v) => !into.vars.some((x) => x.name === v.name));
  const boxes = (pasted.boxes ?? []).map((b) => ({ ...b, x: b.x + dx, y: b.y + dy }));
  const first = into.boxes?.length ?? 0;
  return {
    model: {
      ...into,
      vars: [...into.vars, ...vars],
      nodes: [...into.nodes, ...nodes],
      links: [...into.links, ...links.filter((l) => !have.has(linkId(l)))],
      ...(boxes.length ? { boxes: [...(into.boxes ?? []), ...boxes] } : {}),
    },
    ids: nodes.map((n) => n.id),
    boxes: boxes.map((_, i) => first + i),
  };
}

/** Reads pasted text as a graph and adds it at `at` (one undo step). */
export async function pasteText(text: string, at: Pos) {
  const s = st();
  if (!s.model) return;
  if (text.length > MAX_PASTE_BYTES) {
    s.say(`Nothing pasted: the clipboard holds ${(text.length / 1048576).toFixed(1)} MiB of text; the studio pastes at most 4 MiB at once`, 'error');
    return;
  }
  const count = (text.match(/^\s*node\s/gm) ?? []).length;
  if (count > MAX_PASTE_NODES) {
    s.say(`Nothing pasted: the clipboard holds ${count} nodes; the studio pastes at most ${MAX_PASTE_NODES} at once`, 'error');
    return;
  }
  let pasted: Model | null | undefined;
  try {
    pasted = (await api.parse(text)).model;
  } catch (e) {
    const d = e instanceof ApiError ? (e.body.diagnostics as { line: number; message: string }[] | undefined)?.[0] : undefined;
    st().say(`Nothing pasted: the clipboard text is not a graph${d ? ` (line ${d.line}: ${d.message})` : ''}`, 'error');
    return;
  }
  if (!pasted) {
    st().say('Nothing pasted: the clipboard text is not a graph', 'error');
    return;
  }
  const cur = st().model;
  if (!cur) return;
  if (cur.nodes.length + pasted.nodes.length > 20_000) {
    st().say(`Nothing pasted: the graph would have ${cur.nodes.length + pasted.nodes.length} nodes; the studio edits at most 20000`, 'error');
    return;
  }
  const r = merge(cur, pasted, at);
  st().commit(r.model, { nodes: new Set(r.ids), boxes: new Set(r.boxes) });
  st().say(`Pasted ${r.ids.length} node${r.ids.length === 1 ? '' : 's'}`, 'ok');
}

/** Ctrl+D: the selection again, beside itself, without the clipboard. */
export function duplicate() {
  const { model, selection } = st();
  if (!model || selection.nodes.size === 0) return;
  const nodes = model.nodes.filter((n) => selection.nodes.has(n.id));
  const links = model.links.filter((l) => selection.nodes.has(splitRef(l.from)[0]) && selection.nodes.has(splitRef(l.to)[0]));
  const xs = nodes.filter((n) => n.x !== null).map((n) => n.x as number);
  const ys = nodes.filter((n) => n.y !== null).map((n) => n.y as number);
  const at = { x: (xs.length ? Math.min(...xs) : 0) + 40, y: (ys.length ? Math.min(...ys) : 0) + 40 };
  const r = merge(model, { graph: model.graph, vars: [], nodes, links }, at);
  st().commit(r.model, { nodes: new Set(r.ids) });
}
