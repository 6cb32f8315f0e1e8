// The canvas: React Flow drawing the nodes and wires the selectors derive from the store, and
// turning the pointer and keyboard into the store's named actions (one commit per action).
import { useCallback, useEffect, useMemo, useRef } from 'react';
import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type FinalConnectionState,
  type NodeChange,
  SelectionMode,
  useStore as useFlowStore,
  useStoreApi as useFlowStoreApi,
} from '@xyflow/react';
import { FarView, NodeView, WireDrag, useWireDrag, type NodeData, type SinewNode } from './NodeView';
import { RerouteView } from './RerouteView';
import { WireView, type SinewWire } from './WireView';
import { useStudio } from './store';
import { boxIndex, selectPins, selectRfEdges, selectRfNodes, unplaced } from './derive';
import { autoLayout, EMPTY_PINS, refuseLink } from './graph';
import { connect, moveNodes, removeElements, type Pos } from './edits';
import { QuickAdd } from './QuickAdd';
import { BoxView } from './BoxView';
import { cutWiresAt, pinType } from './commands';
import { cursor, useEditorKeys } from './keys';
import { FarPicture, farHits, nodeAt } from './FarPicture';

const nodeTypes = { sinew: NodeView, reroute: RerouteView, box: BoxView };
export const FAR_ZOOM = 0.7;
/** In the far view a title is drawn as large as 13 px at this zoom (so ≥ 13 px on screen). */
const FAR_TITLE_ZOOM = 1;
export const TINY_ZOOM = 0.3;
/** Graphs up to this many nodes are fitted no smaller than MIN_FIT_ZOOM (studio.md). */
export const READABLE_FIT_NODES = 60;
export function fitMinZoom(nodes: number): number | undefined {
  return nodes <= READABLE_FIT_NODES ? MIN_FIT_ZOOM : undefined;
}
const edgeTypes = { wire: WireView };
/** React Flow's wires in the far picture: none. The picture draws them (from the selector's
 * wires) and the DOM wires are out of layout there, while each mounted wire is two more
 * subscriptions that every change of React Flow's store wakes, and each new wires array is
 * adopted wire by wire (docs/benchmarks.md, "Paste and undo of 200 nodes"). A box select in
 * the far picture therefore selects nodes only; their wires go with them on delete and cut. */
const NO_WIRES: SinewWire[] = [];
/** No key of React Flow's own: with `['Control', 'Meta', 'Shift']` every press and release of
 * those keys (each Ctrl+V, Ctrl+Z, Ctrl+C) was a change of React Flow's store that woke every
 * mounted node's subscription twice; the pointer's modifiers set it instead (onPointerDownCapture). */
const MULTI_SELECT_KEYS = null;
/** The middle and right buttons pan (a left drag box-selects); one array, not one per render. */
const PAN_BUTTONS = [1, 2];
/** The smallest zoom "fit" picks for graphs up to READABLE_FIT_NODES nodes; with the far
 * view's titles (13 px × up to 3) they stay at least 11.7 px on screen (docs/studio.md). */
export const MIN_FIT_ZOOM = 0.3;

export function Canvas(props: { addAt: (kind: string, at: Pos) => void }) {
  const rf = useReactFlow<SinewNode, SinewWire>();
  const flowStore = useFlowStoreApi<SinewNode, SinewWire>();
  const nodes = useStudio(selectRfNodes);
  const edges = useStudio(selectRfEdges);
  const model = useStudio((s) => s.model);
  const layout = useStudio((s) => s.layout);
  const needsFit = useStudio((s) => s.needsFit);
  const search = useStudio((s) => s.search);
  const toast = useStudio((s) => s.toast);
  useEditorKeys();
  const wireDrag = useWireDrag();
  // Far views (studio.md: readable at fit): under FAR_ZOOM a node shows its title large and
  // hides pin names; under TINY_ZOOM only coloured boxes and wires are painted.
  const zoom = useFlowStore((s) => Math.round(s.transform[2] * 100) / 100);
  const view = zoom < TINY_ZOOM ? 'tiny' : zoom < FAR_ZOOM ? 'far' : 'near';
  const titleScale = Math.min(3, Math.max(1, FAR_TITLE_ZOOM / zoom));
  cursor.toFlow = rf.screenToFlowPosition;
  /** Nodes a dragged comment box carries (those inside it when the drag started). */
  const carry = useRef(new Map<string, { ids: string[]; from: Pos; starts: Map<string, Pos> }>());
  const rightDown = useRef<{ x: number; y: number; pending: boolean } | null>(null);

  // Nodes without a position are laid out once per model shape.
  useEffect(() => {
    const s = useStudio.getState();
    if (unplaced(model, layout)) {
      const pins = selectPins(s);
      s.laidOut(autoLayout(model!, (id) => pins.get(id) ?? EMPTY_PINS));
    }
  }, [model, layout]);

  // A newly opened graph is fitted once every node has its place.
  useEffect(() => {
    if (!needsFit || !model || unplaced(model, layout)) return;
    const minZoom = fitMinZoom(model.nodes.length);
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        rf.fitView({ padding: 0.12, minZoom });
        useStudio.getState().fitted();
      }),
    );
  }, [needsFit, model, layout, rf]);

  const onNodesChange = useCallback((changes: NodeChange<SinewNode>[]) => {
    const s = useStudio.getState();
    const measured: Record<string, { width: number; height: number }> = {};
    let drag: Record<string, Pos> | null = null;
    let sel: Set<string> | null = null;
    let boxes: Set<number> | null = null;
    for (const c of changes) {
      const bi = 'id' in c ? boxIndex(c.id) : -1;
      if (c.type === 'dimensions' && c.dimensions) {
        // A box's size is its model's, except while it is being resized.
        if (bi < 0 || c.resizing) measured[c.id] = c.dimensions;
      } else if (c.type === 'position' && c.position && (c.dragging || bi >= 0)) {
        drag ??= { ...(s.drag ?? {}) };
        drag[c.id] = c.position;
        const k = carry.current.get(c.id);
        if (k && c.dragging) {
          for (const id of k.ids) {
            const p = k.starts.get(id) as Pos;
            drag[id] = { x: p.x + c.position.x - k.from.x, y: p.y + c.position.y - k.from.y };
          }
        }
      } else if (c.type === 'select') {
        if (bi >= 0) {
          boxes ??= new Set(s.selection.boxes);
          if (c.selected) boxes.add(bi);
          else boxes.delete(bi);
        } else {
          sel ??= new Set(s.selection.nodes);
          if (c.selected) sel.add(c.id);
          else sel.delete(c.id);
        }
      }
    }
    if (Object.keys(measured).length) s.measuredNodes(measured);
    if (drag) s.dragging(drag);
    if (sel || boxes) useStudio.setState({ selection: { ...s.selection, nodes: sel ?? s.selection.nodes, boxes: boxes ?? s.selection.boxes } });
  }, []);

  const onEdgesChange = useCallback((changes: EdgeChange<SinewWire>[]) => {
    const s = useStudio.getState();
    let sel: Set<string> | null = null;
    for (const c of changes) {
      if (c.type !== 'select') continue;
      sel ??= new Set(s.selection.links);
      if (c.selected) sel.add(c.id);
      else sel.delete(c.id);
    }
    if (sel) useStudio.setState({ selection: { ...s.selection, links: sel } });
  }, []);

  const onNodeDragStart = useCallback((_e: unknown, _n: SinewNode, dragged: SinewNode[]) => {
    carry.current.clear();
    const s = useStudio.getState();
    const moving = new Set(dragged.map((d) => d.id));
    for (const d of dragged) {
      const b = s.model?.boxes?.[boxIndex(d.id)];
      if (!b) continue;
      const inside = (s.model?.nodes ?? []).filter((n) => {
        if (moving.has(n.id) || n.x === null || n.y === null) return false;
        const m = s.measured[n.id] ?? { width: 0, height: 0 };
        return n.x >= b.x && n.y >= b.y && n.x + m.width <= b.x + b.w && n.y + m.height <= b.y + b.h;
      });
      carry.current.set(d.id, {
        ids: inside.map((n) => n.id),
        from: { x: b.x, y: b.y },
        starts: new Map(inside.map((n) => [n.id, { x: n.x as number, y: n.y as number }])),
      });
    }
  }, []);

  const onNodeDragStop = useCallback(() => {
    const s = useStudio.getState();
    const nodes = new Map<string, Pos>();
    const boxes = new Map<number, Pos>();
    for (const [id, p] of Object.entries(s.drag ?? {})) {
      const bi = boxIndex(id);
      if (bi >= 0) boxes.set(bi, p);
      else nodes.set(id, p);
    }
    // A box and the nodes it carries move as one edit.
    s.commit(moveNodes(s.model!, nodes, boxes));
    s.dragging(null);
    carry.current.clear();
  }, []);

  const pinsFn = useCallback((id: string) => selectPins(useStudio.getState()).get(id), []);
  const reason = useCallback(
    (c: Connection | Edge) => refuseLink(c.source, c.sourceHandle ?? '', c.target, c.targetHandle ?? '', pinsFn),
    [pinsFn],
  );

  // Stable: React Flow keeps it in its store, and a new function there on every render of the
  // canvas was one more change waking every mounted node's subscription after each edit.
  const isValidConnection = useCallback((c: Connection | Edge) => reason(c) === null, [reason]);

  const onConnect = useCallback(
    (c: Connection) => {
      const s = useStudio.getState();
      const r = reason(c);
      if (r) {
        s.say(`Link refused: ${r}`, 'refused');
        return;
      }
      const exec = pinsFn(c.source)?.outputs.find((p) => p.name === c.sourceHandle)?.type === 'exec';
      s.commit(connect(s.model!, `${c.source}.${c.sourceHandle}`, `${c.target}.${c.targetHandle}`, exec));
    },
    [pinsFn, reason],
  );

  const onConnectEnd = useCallback(
    (e: MouseEvent | TouchEvent, c: FinalConnectionState) => {
      const from = c.fromHandle;
      if (!c.isValid && from && c.toHandle) {
        const src = from.type === 'source' ? from : c.toHandle;
        const dst = from.type === 'source' ? c.toHandle : from;
        const r =
          from.type === c.toHandle.type
            ? `a link runs from an output to an input`
            : refuseLink(src.nodeId, src.id ?? '', dst.nodeId, dst.id ?? '', pinsFn);
        if (r) useStudio.getState().say(`Link refused: ${r}`, 'refused');
        return;
      }
      // A wire dropped on empty canvas: search the nodes that take it, and wire the new one in.
      if (from && !c.toHandle && !c.toNode) {
        const p = 'changedTouches' in e ? e.changedTouches[0] : e;
        const output = from.type === 'source';
        // Dragged from a wired input: that wire's end was picked up and dropped: it goes.
        const s = useStudio.getState();
        const pin = `${from.nodeId}.${from.id}`;
        const wired = output ? [] : (s.model?.links ?? []).filter((l) => l.to === pin);
        if (wired.length) {
          s.commit(removeElements(s.model!, [], wired.map((l) => `${l.from} -> ${l.to}`)));
          return;
        }
        const type = pinType(from.nodeId, from.id ?? '', output);
        if (!type) return;
        useStudio.getState().openSearch({
          x: p.clientX,
          y: p.clientY,
          flow: rf.screenToFlowPosition({ x: p.clientX, y: p.clientY }),
          query: '',
          wire: { node: from.nodeId, pin: from.id ?? '', type, output },
        });
      }
    },
    [pinsFn, rf],
  );

  // A wire's end dragged to another pin moves the wire; dropped on empty canvas, removes it.
  const reconnected = useRef(false);
  const onReconnect = useCallback(
    (old: SinewWire, c: Connection) => {
      reconnected.current = true;
      const s = useStudio.getState();
      const r = reason(c);
      if (r) {
        s.say(`Link refused: ${r}`, 'refused');
        return;
      }
      const without = removeElements(s.model!, [], [old.id]);
      if (!without) return;
      const exec = pinsFn(c.source)?.outputs.find((p) => p.name === c.sourceHandle)?.type === 'exec';
      s.commit(connect(without, `${c.source}.${c.sourceHandle}`, `${c.target}.${c.targetHandle}`, exec) ?? without);
    },
    [pinsFn, reason],
  );
  const onReconnectEnd = useCallback((_e: unknown, edge: SinewWire, _h: unknown, c: FinalConnectionState) => {
    if (!reconnected.current && !c.toHandle) {
      const s = useStudio.getState();
      s.commit(removeElements(s.model!, [], [edge.id]));
    }
    reconnected.current = false;
  }, []);

  // Alt+click on a pin cuts its wires (before React Flow starts a wire from it).
  const onPointerDownCapture = useCallback((e: React.PointerEvent) => {
    // Ctrl/Shift/Meta+click adds to the selection: React Flow reads `multiSelectionActive`
    // only while handling a pointer (node or wire click, drag start), so the page sets it from
    // the pointer's own modifiers here rather than on every key press (MULTI_SELECT_KEYS).
    const multi = e.ctrlKey || e.metaKey || e.shiftKey;
    if (flowStore.getState().multiSelectionActive !== multi) flowStore.setState({ multiSelectionActive: multi });
    if (e.button === 2) rightDown.current = { x: e.clientX, y: e.clientY, pending: false };
    if (!e.altKey || e.button !== 0) return;
    const pin = (e.target as HTMLElement).closest('[data-pin]')?.getAttribute('data-pin');
    if (!pin) return;
    e.stopPropagation();
    e.preventDefault();
    cutWiresAt(pin);
  }, [flowStore]);

  // Right-click (without dragging: right-drag pans) opens the search at the cursor. Linux
  // sends `contextmenu` on press, Windows on release: the search opens on release either way.
  const openSearchAt = useCallback(
    (x: number, y: number) => useStudio.getState().openSearch({ x, y, flow: rf.screenToFlowPosition({ x, y }), query: '' }),
    [rf],
  );
  const onContextMenu = useCallback(
    (e: React.MouseEvent) => {
      e.preventDefault();
      if (!(e.target as HTMLElement).classList.contains('react-flow__pane')) return;
      const d = rightDown.current;
      if (d) d.pending = true;
      else openSearchAt(e.clientX, e.clientY);
    },
    [openSearchAt],
  );
  useEffect(() => {
    const up = (e: MouseEvent) => {
      const d = rightDown.current;
      if (e.button !== 2 || !d) return;
      rightDown.current = null;
      if (d.pending && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 5) openSearchAt(e.clientX, e.clientY);
    };
    window.addEventListener('mouseup', up, true);
    return () => window.removeEventListener('mouseup', up, true);
  }, [openSearchAt]);

  const onDrop = useCallback(
    (e: React.DragEvent) => {
      e.preventDefault();
      const kind = e.dataTransfer.getData('application/x-sinew-kind');
      if (kind) props.addAt(kind, rf.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
    },
    [props, rf],
  );

  const onDoubleClick = useCallback(
    (e: React.MouseEvent) => {
      if (!(e.target as HTMLElement).classList.contains('react-flow__pane')) return;
      const flow = rf.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      // In the far picture a double-clicked node is zoomed to, where it can be edited.
      const hit = view === 'tiny' ? farHits.rects.find((r) => r.id === nodeAt(farHits.rects, flow)) : undefined;
      if (hit) rf.setCenter(hit.x + hit.w / 2, hit.y + hit.h / 2, { zoom: 1, duration: 200 });
      else useStudio.getState().openSearch({ x: e.clientX, y: e.clientY, flow, query: '' });
    },
    [rf, view],
  );

  const minimapColor = useMemo(() => (n: SinewNode) => ((n.data as NodeData | undefined)?.executed?.length ? '#ffd166' : '#666'), []);

  // Test hook (e2e and bench/paste.mjs): how many times React Flow's store changed, and the
  // nodes and wires it holds. Every change wakes each mounted node's subscription, so the
  // editor's actions are judged by how few they cause (docs/benchmarks.md).
  useEffect(() => {
    let updates = 0;
    const off = flowStore.subscribe(() => void updates++);
    (window as unknown as { __sinewFlow?: unknown }).__sinewFlow = () => {
      const f = flowStore.getState();
      return { updates, nodes: f.nodes.length, wires: f.edges.length };
    };
    return off;
  }, [flowStore]);

  useEffect(() => {
    if (!toast) return;
    const t = setTimeout(() => useStudio.getState().clearToast(), toast.kind === 'refused' ? 8000 : 4000);
    return () => clearTimeout(t);
  }, [toast]);

  return (
    <main
      className={`canvas zoom-${view}`}
      data-zoom-view={view}
      style={{ '--title-scale': titleScale } as React.CSSProperties}
      onDrop={onDrop}
      onDragOver={(e) => e.preventDefault()}
      onDoubleClick={onDoubleClick}
      onPointerDownCapture={onPointerDownCapture}
      // The middle button pans the canvas: never the browser's autoscroll or paste.
      onMouseDownCapture={(e) => e.button === 1 && e.preventDefault()}
      onContextMenu={onContextMenu}
      onPointerMove={(e) => (cursor.screen = { x: e.clientX, y: e.clientY })}
      onPointerLeave={() => (cursor.screen = null)}
    >
      <WireDrag.Provider value={wireDrag}>
      <FarView.Provider value={view === 'tiny'}>
      <ReactFlow<SinewNode, SinewWire>
        nodes={nodes}
        edges={view === 'tiny' ? NO_WIRES : edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onNodeDragStart={onNodeDragStart}
        onNodeDragStop={onNodeDragStop}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        edgesReconnectable
        onReconnect={onReconnect}
        onReconnectEnd={onReconnectEnd}
        isValidConnection={isValidConnection}
        onPaneClick={(e) => {
          const s = useStudio.getState();
          s.openSearch(null);
          // In the far picture a click on a drawn node selects it (Ctrl/Shift: adds).
          const hit = view === 'tiny' ? nodeAt(farHits.rects, rf.screenToFlowPosition({ x: e.clientX, y: e.clientY })) : null;
          if (hit) s.select({ nodes: new Set([hit]) }, e.ctrlKey || e.metaKey || e.shiftKey);
          else s.select({});
        }}
        zoomOnDoubleClick={false}
        deleteKeyCode={null}
        selectionOnDrag
        selectionMode={SelectionMode.Partial}
        panOnDrag={PAN_BUTTONS}
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        elevateNodesOnSelect={false}
        onlyRenderVisibleElements={view !== 'tiny'}
        // In the far picture the DOM nodes are out of layout: nothing to drag or focus there (a
        // comment box, drawn in the DOM, stays draggable: `draggable: true`, derive.ts). Each
        // draggable node sets up and tears down its own drag handler as it mounts and unmounts.
        nodesDraggable={view !== 'tiny'}
        nodesFocusable={view !== 'tiny'}
        minZoom={0.05}
        maxZoom={2.5}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} color="#2a2a31" />
        {view === 'tiny' && <FarPicture nodes={nodes} edges={edges} titleScale={titleScale} />}
        <MiniMap pannable zoomable maskColor="#0c0c10cc" bgColor="#1b1b21" nodeColor={minimapColor} />
        <Controls />
      </ReactFlow>
      </FarView.Provider>
      </WireDrag.Provider>
      {search && <QuickAdd search={search} onAdd={props.addAt} />}
      {toast && (
        <div className={`toast ${toast.kind}`} data-testid={toast.kind === 'refused' ? 'link-refused' : 'toast'}>
          {toast.text}
        </div>
      )}
    </main>
  );
}
