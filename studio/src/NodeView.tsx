// One graph node on the canvas: header coloured by family, typed pins (exec pins as arrows,
// data pins as dots in their type's colour), literal values on unlinked inputs, diagnostic
// badge and debugger highlight. Test hooks: data-node-id, data-pin, data-diagnostic-code,
// data-executed.
import { memo } from 'react';
import { Handle, Position, type NodeProps, type Node } from '@xyflow/react';
import type { Diagnostic, Lit } from './api';
import { FAMILY_COLORS, HEADER, NODE_WIDTH, ROW, TYPE_COLORS, litText, type NodePins } from './graph';

export interface NodeData extends Record<string, unknown> {
  id: string;
  kind: string;
  /** What people read: an event's display name, else the node's id. */
  title: string;
  /** The `.animseq` an event comes from, else the kind. */
  subtitle: string;
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

function NodeViewImpl({ data, selected }: NodeProps<SinewNode>) {
  const { id, pins, props, diagnostics, executed } = data;
  const rows = Math.max(pins.inputs.length, pins.outputs.length, 1);
  const worst = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  const cls = ['sn-node', selected ? 'selected' : '', executed.length ? 'executed' : '', worst ? `has-${worst.severity}` : '']
    .filter(Boolean)
    .join(' ');
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
            <div key={`i-${p.name}`} className="sn-pin in" style={{ top: 4 + i * ROW, height: ROW }}>
              <Handle
                type="target"
                position={Position.Left}
                id={p.name}
                className={`sn-handle ${p.type === 'exec' ? 'exec' : 'data'}`}
                style={{ top: ROW / 2 }}
                data-pin={`${id}.${p.name}`}
                data-pin-type={p.type}
              >
                <PinDot type={p.type} />
              </Handle>
              <span className="sn-pin-name">{p.type === 'exec' && p.name === 'exec' ? '' : p.name}</span>
              {showLit && <span className="sn-lit">{litText(lit)}</span>}
            </div>
          );
        })}
        {pins.outputs.map((p, i) => (
          <div key={`o-${p.name}`} className="sn-pin out" style={{ top: 4 + i * ROW, height: ROW }}>
            <span className="sn-pin-name">{p.type === 'exec' && p.name === 'then' ? '' : p.name}</span>
            <Handle
              type="source"
              position={Position.Right}
              id={p.name}
              className={`sn-handle ${p.type === 'exec' ? 'exec' : 'data'}`}
              style={{ top: ROW / 2 }}
              data-pin={`${id}.${p.name}`}
              data-pin-type={p.type}
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
