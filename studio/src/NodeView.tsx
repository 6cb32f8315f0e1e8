// One graph node on the canvas: header coloured by family, typed pins (exec pins as arrows,
// data pins as dots in their type's colour), literal values on unlinked inputs, diagnostic
// badge and debugger highlight. Test hooks: data-node-id, data-pin, data-diagnostic-code,
// data-executed.
import { createContext, memo, useContext } from 'react';
import { Handle, Position, useConnection, type NodeProps, type Node } from '@xyflow/react';
import { accepts } from './commands';
import { useStudio } from './store';
import { selectPins } from './derive';
import type { Diagnostic, Lit } from './api';
import { FAMILY_COLORS, HEADER, NODE_WIDTH, ROW, TYPE_COLORS, litText, type NodePins } from './graph';

export interface NodeData extends Record<string, unknown> {
  id: string;
  kind: string;
  /** What people read: an event's display name, else the node's id. */
  title: string;
  /** The `.animseq` an event comes from, else the kind. */
  subtitle: string;
  /** The node table's description of the kind (palette). */
  description: string;
  family: string;
  pins: NodePins;
  props: Record<string, Lit>;
  linkedInputs: string[];
  diagnostics: Diagnostic[];
  executed: number[];
  comment: string;
}

export type SinewNode = Node<NodeData, 'sinew' | 'reroute'>;

function PinDot({ type }: { type: string }) {
  const c = TYPE_COLORS[type] ?? '#aaa';
  if (type === 'exec') {
    return (
      <svg width="12" height="12" viewBox="0 0 12 12" className="pin-shape">
        <path d="M1 1 L7 1 L11 6 L7 11 L1 11 Z" fill={c} />
      </svg>
    );
  }
  return (
    <svg width="12" height="12" viewBox="0 0 12 12" className="pin-shape">
      <circle cx="6" cy="6" r="4.5" fill={c} />
    </svg>
  );
}

/** While a wire is dragged: `node|pin|source-or-target|type` of its start, else ''. The
 * canvas reads React Flow's connection once and hands it down (one subscription, not one per
 * node: every node's own subscription was woken by every change of React Flow's store). */
export const WireDrag = createContext('');

/** Whether the far picture draws the graph (zoom under TINY_ZOOM): the DOM nodes are then out
 * of layout (`display: none`), so a node renders only what selection, copy and the test hooks
 * read — no pins. A pin is a React Flow `Handle`, and each Handle is one more subscription to
 * React Flow's store that every change of it wakes (3 per `int.add`: a paste of 200 nodes on a
 * 1,000-node graph woke 3,600 of them on each of its store updates). Leaving the far view
 * shows the nodes again; React Flow's resize observer then measures their pins afresh. */
export const FarView = createContext(false);

/** The `WireDrag` value for React Flow's connection state. */
export function useWireDrag(): string {
  return useConnection((c) => {
    if (!c.inProgress || !c.fromHandle) return '';
    const h = c.fromHandle;
    const pins = selectPins(useStudio.getState()).get(h.nodeId);
    return `${h.nodeId}|${h.id}|${h.type}|${(h.type === 'source' ? pins?.outputs : pins?.inputs)?.find((p) => p.name === h.id)?.type ?? ''}`;
  });
}

/** `compatible` / `incompatible` for a pin while a wire is dragged (studio.md: compatible
 * pins light up, incompatible ones dim). */
function feedback(drag: string, node: string, pin: { name: string; type: string }, side: 'source' | 'target'): string {
  if (!drag) return '';
  const [fn, fp, ft, type] = drag.split('|');
  if (fn === node && fp === pin.name) return '';
  if (ft === side || fn === node || !type) return 'incompatible';
  const ok = side === 'target' ? accepts(type, pin.type) : accepts(pin.type, type);
  return ok ? 'compatible' : 'incompatible';
}

function pinTitle(p: { name: string; type: string; description?: string; default?: string }, nodeDescription: string): string {
  return [`${p.name}: ${p.type}${p.default !== undefined ? ` (default ${p.default})` : ''}`, p.description ?? nodeDescription].filter(Boolean).join('\n');
}

function NodeViewImpl({ data, selected }: NodeProps<SinewNode>) {
  const { id, pins, props, diagnostics, executed } = data;
  const drag = useContext(WireDrag);
  const far = useContext(FarView);
  const rows = Math.max(pins.inputs.length, pins.outputs.length, 1);
  const worst = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  const cls = ['sn-node', selected ? 'selected' : '', executed.length ? 'executed' : '', worst ? `has-${worst.severity}` : '']
    .filter(Boolean)
    .join(' ');
  if (far) return <div className={cls} data-node-id={id} data-executed={executed.length ? 'true' : undefined} style={{ width: NODE_WIDTH }} />;
  return (
    <div
      className={cls}
      data-node-id={id}
      data-executed={executed.length ? 'true' : undefined}
      style={{ width: NODE_WIDTH }}
      title={data.comment || undefined}
    >
      {data.comment && <div className="sn-comment">{data.comment.replace(/^\/\/ ?/gm, '')}</div>}
      <div className="sn-header" style={{ background: FAMILY_COLORS[data.family] ?? '#444', height: HEADER }}>
        <span className="sn-id">{data.title}</span>
        <span className="sn-kind" title={data.kind}>{data.subtitle}</span>
        {executed.length > 0 && <span className="sn-order" title="run order">{executed.join(',')}</span>}
      </div>
      {worst && (
        <div
          className={`sn-badge ${worst.severity}`}
          data-diagnostic-code={worst.code}
          title={diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n')}
        >
          {worst.severity === 'error' ? '!' : '?'} {worst.code}
          {diagnostics.length > 1 ? ` +${diagnostics.length - 1}` : ''}
        </div>
      )}
      <div className="sn-body" style={{ height: rows * ROW + 8 }}>
        {pins.inputs.map((p, i) => {
          const lit = props[p.name];
          const showLit = lit !== undefined && !data.linkedInputs.includes(p.name);
          return (
            <div
              key={`i-${p.name}`}
              className={`sn-pin in ${feedback(drag, id, p, 'target')}`}
              style={{ top: 4 + i * ROW, height: ROW }}
            >
              <Handle
                type="target"
                position={Position.Left}
                id={p.name}
                className={`sn-handle ${p.type === 'exec' ? 'exec' : 'data'}`}
                style={{ top: ROW / 2 }}
                data-pin={`${id}.${p.name}`}
                data-pin-type={p.type}
                title={pinTitle(p, data.description)}
              >
                <PinDot type={p.type} />
              </Handle>
              <span className="sn-pin-name">{p.type === 'exec' && p.name === 'exec' ? '' : p.name}</span>
              {showLit && <span className="sn-lit">{litText(lit)}</span>}
            </div>
          );
        })}
        {pins.outputs.map((p, i) => (
          <div
            key={`o-${p.name}`}
            className={`sn-pin out ${feedback(drag, id, p, 'source')}`}
            style={{ top: 4 + i * ROW, height: ROW }}
          >
            <span className="sn-pin-name">{p.type === 'exec' && p.name === 'then' ? '' : p.name}</span>
            <Handle
              type="source"
              position={Position.Right}
              id={p.name}
              className={`sn-handle ${p.type === 'exec' ? 'exec' : 'data'}`}
              style={{ top: ROW / 2 }}
              data-pin={`${id}.${p.name}`}
              data-pin-type={p.type}
              title={pinTitle(p, data.description)}
            >
              <PinDot type={p.type} />
            </Handle>
          </div>
        ))}
      </div>
    </div>
  );
}

export const NodeView = memo(NodeViewImpl);
