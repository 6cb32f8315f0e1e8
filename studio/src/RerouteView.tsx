// A reroute node: one small knot with a pass-through pin pair (`in`, `out`) typed by the wire
// into it. Test hooks as any node: data-node-id, data-pin.
import { memo, useContext } from 'react';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { TYPE_COLORS } from './graph';
import { FarView, type SinewNode } from './NodeView';

function RerouteViewImpl({ data, selected }: NodeProps<SinewNode>) {
  const t = data.pins.inputs.find((p) => p.name === 'in')?.type ?? data.pins.outputs[0]?.type ?? 'var';
  const c = TYPE_COLORS[t] ?? '#aaa';
  // In the far picture: no pins (NodeView's FarView).
  if (useContext(FarView)) return <div className={`sn-reroute${selected ? ' selected' : ''}`} data-node-id={data.id} />;
  return (
    <div className={`sn-reroute${selected ? ' selected' : ''}`} data-node-id={data.id} title={`reroute (${t})`} style={{ borderColor: c }}>
      <Handle type="target" position={Position.Left} id="in" className="sn-handle reroute" data-pin={`${data.id}.in`} data-pin-type={t} />
      <Handle type="source" position={Position.Right} id="out" className="sn-handle reroute" data-pin={`${data.id}.out`} data-pin-type={t} />
    </div>
  );
}

export const RerouteView = memo(RerouteViewImpl);
