// The canvas: React Flow drawing the nodes and wires the selectors derive from the store, and
// turning the pointer and keyboard into the store's named actions (one commit per action).
import { useCallback, useEffect, useMemo } from 'react';
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
} from '@xyflow/react';
import { NodeView, type NodeData, type SinewNode } from './NodeView';
import { RerouteView } from './RerouteView';
import { WireView, type SinewWire } from './WireView';
import { useStudio } from './store';
import { selectPins, selectRfEdges, selectRfNodes, unplaced } from './derive';
import { autoLayout, EMPTY_PINS, refuseLink } from './graph';
import { connect, moveNodes, removeElements, type Pos } from './edits';
import { QuickAdd } from './QuickAdd';

const nodeTypes = { sinew: NodeView, reroute: RerouteView };
const edgeTypes = { wire: WireView };
/** The smallest zoom "fit" picks: node titles and pin names stay readable (docs/studio.md). */
export const MIN_FIT_ZOOM = 0.55;

export function Canvas(props: { addAt: (kind: string, at: Pos) => void }) {
  const rf = useReactFlow<SinewNode, SinewWire>();
  const nodes = useStudio(selectRfNodes);
  const edges = useStudio(selectRfEdges);
  const model = useStudio((s) => s.model);
  const layout = useStudio((s) => s.layout);
  const needsFit = useStudio((s) => s.needsFit);
  const search = useStudio((s) => s.search);
  const toast = useStudio((s) => s.toast);

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
    useStudio.getState().fitted();
    requestAnimationFrame(() => requestAnimationFrame(() => rf.fitView({ padding: 0.12 })));
  }, [needsFit, model, layout, rf]);

  const onNodesChange = useCallback((changes: NodeChange<SinewNode>[]) => {
    const s = useStudio.getState();
    const measured: Record<string, { width: number; height: number }> = {};
    let drag: Record<string, Pos> | null = null;
    let sel: Set<string> | null = null;
    for (const c of changes) {
      if (c.type === 'dimensions' && c.dimensions) measured[c.id] = c.dimensions;
      else if (c.type === 'position' && c.position && c.dragging) (drag ??= { ...(s.drag ?? {}) })[c.id] = c.position;
      else if (c.type === 'select') {
        sel ??= new Set(s.selection.nodes);
        if (c.selected) sel.add(c.id);
        else sel.delete(c.id);
      }
    }
    if (Object.keys(measured).length) s.measuredNodes(measured);
    if (drag) s.dragging(drag);
    if (sel) useStudio.setState({ selection: { ...s.selection, nodes: sel } });
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

  const onNodeDragStop = useCallback((_e: unknown, _n: SinewNode, moved: SinewNode[]) => {
    const s = useStudio.getState();
    const pos = new Map(moved.map((r) => [r.id, s.drag?.[r.id] ?? r.position]));
    s.commit(moveNodes(s.model!, pos));
    s.dragging(null);
  }, []);

  const onDelete = useCallback(({ nodes: ns, edges: es }: { nodes: SinewNode[]; edges: SinewWire[] }) => {
    const s = useStudio.getState();
    if (!s.model) return;
    // The node and its wires go as one edit: one undo step.
    s.commit(
      removeElements(
        s.model,
        ns.map((n) => n.id),
        es.map((e) => e.id),
      ),
    );
  }, []);

  const pinsFn = useCallback((id: string) => selectPins(useStudio.getState()).get(id), []);
  const reason = useCallback(
    (c: Connection | Edge) => refuseLink(c.source, c.sourceHandle ?? '', c.target, c.targetHandle ?? '', pinsFn),
    [pinsFn],
  );

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
    (_e: MouseEvent | TouchEvent, c: FinalConnectionState) => {
      if (!c.isValid && c.fromHandle && c.toHandle) {
        const from = c.fromHandle.type === 'source' ? c.fromHandle : c.toHandle;
        const to = c.fromHandle.type === 'source' ? c.toHandle : c.fromHandle;
        const r =
          c.fromHandle.type === c.toHandle.type
            ? `a link runs from an output to an input`
            : refuseLink(from.nodeId, from.id ?? '', to.nodeId, to.id ?? '', pinsFn);
        if (r) useStudio.getState().say(`Link refused: ${r}`, 'refused');
      }
    },
    [pinsFn],
  );

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
      useStudio.getState().openSearch({ x: e.clientX, y: e.clientY, flow: rf.screenToFlowPosition({ x: e.clientX, y: e.clientY }), query: '' });
    },
    [rf],
  );

  const minimapColor = useMemo(() => (n: SinewNode) => ((n.data as NodeData | undefined)?.executed?.length ? '#ffd166' : '#666'), []);

  useEffect(() => {
    if (!toast) return;
    const t = setTimeout(() => useStudio.getState().clearToast(), toast.kind === 'refused' ? 8000 : 4000);
    return () => clearTimeout(t);
  }, [toast]);

  return (
    <main className="canvas" onDrop={onDrop} onDragOver={(e) => e.preventDefault()} onDoubleClick={onDoubleClick}>
      <ReactFlow<SinewNode, SinewWire>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onNodeDragStop={onNodeDragStop}
        onDelete={onDelete}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        isValidConnection={(c) => reason(c) === null}
        onPaneClick={() => {
          const s = useStudio.getState();
          s.select({});
          s.openSearch(null);
        }}
        zoomOnDoubleClick={false}
        deleteKeyCode={['Delete', 'Backspace']}
        minZoom={0.05}
        maxZoom={2.5}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} color="#2a2a31" />
        <MiniMap pannable zoomable maskColor="#0c0c10cc" bgColor="#1b1b21" nodeColor={minimapColor} />
        <Controls />
      </ReactFlow>
      {search && <QuickAdd search={search} onAdd={props.addAt} />}
      {toast && (
        <div className={`toast ${toast.kind}`} data-testid={toast.kind === 'refused' ? 'link-refused' : 'toast'}>
          {toast.text}
        </div>
      )}
    </main>
  );
}
