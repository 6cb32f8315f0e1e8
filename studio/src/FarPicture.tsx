// The far picture: below TINY_ZOOM the whole graph is drawn on ONE canvas — comment boxes,
// wires (one path per colour), nodes as rectangles with their family's header, titles when
// they would be legible, selection and debugger highlights — while the DOM nodes and wires are
// taken out of layout (`display: none`, styles.css). Panning 1,000 DOM nodes was bound by
// Chromium's hit testing, layerization and paint of every node on every frame
// (docs/benchmarks.md); the picture costs a few path fills per frame whatever the graph.
// Geometry is built in flow coordinates once per change of the nodes or wires (Path2D), and a
// frame only sets the viewport's transform and fills those paths.
import { useEffect, useMemo, useRef } from 'react';
import { useStoreApi } from '@xyflow/react';
import { FAMILY_COLORS, HEADER, NODE_WIDTH, ROW, TYPE_COLORS, nodeSize } from './graph';
import type { SinewNode } from './NodeView';
import type { SinewWire } from './WireView';
import type { BoxNode } from './BoxView';

/** Where a wire meets pin `pin` of node `n` (flow coordinates). */
function pinPoint(n: SinewNode, pin: string | null | undefined, out: boolean): { x: number; y: number } {
  const { width, height } = nodeSize(n.type === 'reroute' ? 'reroute' : 'sinew', n.data.pins);
  const x = n.position.x + (out ? width : 0);
  if (n.type === 'reroute') return { x, y: n.position.y + height / 2 };
  const list = out ? n.data.pins.outputs : n.data.pins.inputs;
  const i = Math.max(0, list.findIndex((p) => p.name === pin));
  return { x, y: n.position.y + 1 + HEADER + 4 + i * ROW + ROW / 2 };
}

interface Picture {
  boxes: { x: number; y: number; w: number; h: number; color: string; title: string }[];
  wires: Map<string, { path: Path2D; width: number }>;
  bodies: Path2D;
  headers: Map<string, Path2D>;
  reroutes: Map<string, Path2D>;
  selected: Path2D;
  executed: Path2D;
  titles: { x: number; y: number; text: string }[];
  /** Node rectangles for hit tests (screen clicks in the far view). */
  rects: { id: string; x: number; y: number; w: number; h: number }[];
}

function build(nodes: SinewNode[], edges: SinewWire[]): Picture {
  const byId = new Map<string, SinewNode>();
  const pic: Picture = {
    boxes: [],
    wires: new Map(),
    bodies: new Path2D(),
    headers: new Map(),
    reroutes: new Map(),
    selected: new Path2D(),
    executed: new Path2D(),
    titles: [],
    rects: [],
  };
  for (const n of nodes) {
    if ((n.type as string) === 'box') {
      const b = n as unknown as BoxNode;
      pic.boxes.push({ x: b.position.x, y: b.position.y, w: b.width ?? 0, h: b.height ?? 0, color: b.data.color, title: b.data.title });
      continue;
    }
    byId.set(n.id, n);
    const { width: w, height: h } = nodeSize(n.type === 'reroute' ? 'reroute' : 'sinew', n.data.pins);
    const { x, y } = n.position;
    pic.rects.push({ id: n.id, x, y, w, h });
    if (n.type === 'reroute') {
      const t = n.data.pins.inputs[0]?.type ?? 'var';
      const c = TYPE_COLORS[t] ?? '#aaa';
      const p = pic.reroutes.get(c) ?? new Path2D();
      p.moveTo(x + w, y + h / 2);
      p.arc(x + w / 2, y + h / 2, w / 2, 0, Math.PI * 2);
      pic.reroutes.set(c, p);
    } else {
      pic.bodies.rect(x, y, w, h);
      const c = FAMILY_COLORS[n.data.family] ?? '#444';
      const p = pic.headers.get(c) ?? new Path2D();
      p.rect(x, y, w, HEADER);
      pic.headers.set(c, p);
      pic.titles.push({ x: x + 8, y: y + HEADER / 2, text: n.data.title });
    }
    if (n.selected) pic.selected.rect(x - 3, y - 3, w + 6, h + 6);
    if (n.data.executed.length) pic.executed.rect(x - 4, y - 4, w + 8, h + 8);
  }
  for (const e of edges) {
    const a = byId.get(e.source);
    const b = byId.get(e.target);
    if (!a || !b) continue;
    const s = pinPoint(a, e.sourceHandle, true);
    const t = pinPoint(b, e.targetHandle, false);
    const type = e.data?.type ?? 'var';
    const color = e.selected ? '#ffd166' : TYPE_COLORS[type] ?? '#aaa';
    const w = pic.wires.get(color) ?? { path: new Path2D(), width: type === 'exec' ? 1.6 : 1 };
    const dx = Math.max(Math.abs(t.x - s.x) * 0.5, 40);
    w.path.moveTo(s.x, s.y);
    w.path.bezierCurveTo(s.x + dx, s.y, t.x - dx, t.y, t.x, t.y);
    pic.wires.set(color, w);
  }
  return pic;
}

/** Titles are drawn only when at least this tall on screen (px). */
const LEGIBLE_PX = 6;

function draw(canvas: HTMLCanvasElement, pic: Picture, [tx, ty, zoom]: [number, number, number], titleScale: number) {
  const dpr = window.devicePixelRatio || 1;
  const { clientWidth: cw, clientHeight: ch } = canvas;
  if (canvas.width !== Math.round(cw * dpr) || canvas.height !== Math.round(ch * dpr)) {
    canvas.width = Math.round(cw * dpr);
    canvas.height = Math.round(ch * dpr);
  }
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(zoom * dpr, 0, 0, zoom * dpr, tx * dpr, ty * dpr);
  const px = 1 / zoom; // one screen pixel in flow units
  for (const b of pic.boxes) {
    ctx.fillStyle = `${b.color}26`;
    ctx.fillRect(b.x, b.y, b.w, b.h);
    ctx.strokeStyle = b.color;
    ctx.lineWidth = 2 * px;
    ctx.strokeRect(b.x, b.y, b.w, b.h);
  }
  ctx.lineWidth = 6 * px;
  ctx.strokeStyle = '#ffd166';
  ctx.stroke(pic.executed);
  for (const [color, w] of pic.wires) {
    ctx.strokeStyle = color;
    ctx.lineWidth = w.width * px;
    ctx.stroke(w.path);
  }
  ctx.fillStyle = '#26262d';
  ctx.fill(pic.bodies);
  for (const [color, p] of pic.headers) {
    ctx.fillStyle = color;
    ctx.fill(p);
  }
  ctx.lineWidth = 3 * px;
  for (const [color, p] of pic.reroutes) {
    ctx.fillStyle = '#2a2a32';
    ctx.fill(p);
    ctx.strokeStyle = color;
    ctx.stroke(p);
  }
  ctx.lineWidth = 2 * px;
  ctx.strokeStyle = '#5aa9ff';
  ctx.stroke(pic.selected);
  const size = 13 * titleScale;
  if (size * zoom >= LEGIBLE_PX) {
    ctx.fillStyle = '#e6e6ea';
    ctx.font = `600 ${size}px system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    for (const t of pic.titles) ctx.fillText(t.text, t.x, t.y, NODE_WIDTH - 16);
  }
}

/** The node under a flow position, in the far view (the topmost: the last drawn). */
export function nodeAt(rects: Picture['rects'], p: { x: number; y: number }): string | null {
  for (let i = rects.length - 1; i >= 0; i--) {
    const r = rects[i];
    if (p.x >= r.x && p.x <= r.x + r.w && p.y >= r.y && p.y <= r.y + r.h) return r.id;
  }
  return null;
}

/** Hit tests for the canvas: the rectangles of the picture last drawn. */
export const farHits: { rects: Picture['rects'] } = { rects: [] };

export function FarPicture(props: { nodes: SinewNode[]; edges: SinewWire[]; titleScale: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const store = useStoreApi();
  const pic = useMemo(() => build(props.nodes, props.edges), [props.nodes, props.edges]);
  const scale = useRef(props.titleScale);
  scale.current = props.titleScale;
  useEffect(() => {
    farHits.rects = pic.rects;
    let frame = 0;
    const schedule = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        if (ref.current) draw(ref.current, pic, store.getState().transform, scale.current);
      });
    };
    schedule();
    let last = store.getState().transform;
    const unsubscribe = store.subscribe((s) => {
      if (s.transform !== last) {
        last = s.transform;
        schedule();
      }
    });
    const resize = new ResizeObserver(schedule);
    if (ref.current) resize.observe(ref.current);
    return () => {
      unsubscribe();
      resize.disconnect();
      if (frame) cancelAnimationFrame(frame);
      farHits.rects = [];
    };
  }, [pic, store]);
  return <canvas ref={ref} className="sn-far-picture" data-far-picture data-far-nodes={pic.rects.length} />;
}
