// One link: exec wires thick and white, data wires thinner in their type's colour, both
// curved. Test hook: data-link="from -> to".
import { memo } from 'react';
import { getBezierPath, useReactFlow, type Edge, type EdgeProps } from '@xyflow/react';
import { rerouteWire } from './commands';
import { TYPE_COLORS } from './graph';

export interface WireData extends Record<string, unknown> {
  type: string;
  link: string;
  executed: boolean;
}

export type SinewWire = Edge<WireData, 'wire'>;

function WireViewImpl(p: EdgeProps<SinewWire>) {
  const rf = useReactFlow();
  const [d] = getBezierPath({
    sourceX: p.sourceX,
    sourceY: p.sourceY,
    targetX: p.targetX,
    targetY: p.targetY,
    sourcePosition: p.sourcePosition,
    targetPosition: p.targetPosition,
  });
  const type = p.data?.type ?? 'var';
  const exec = type === 'exec';
  const color = TYPE_COLORS[type] ?? '#aaa';
  return (
    <g
      data-link={p.data?.link}
      data-ran={p.data?.executed ? 'true' : undefined}
      className={`sn-wire ${exec ? 'exec' : 'data'}${p.selected ? ' selected' : ''}${p.data?.executed ? ' ran' : ''}`}
      // Double-click a wire: a reroute node there.
      onDoubleClick={(e) => {
        e.stopPropagation();
        if (p.data) rerouteWire(p.data.link, rf.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
      }}
    >
      <path d={d} className="sn-wire-hit" fill="none" stroke="transparent" strokeWidth={14} />
      <path
        d={d}
        fill="none"
        stroke={p.selected ? '#ffd166' : color}
        strokeWidth={exec ? 3.2 : 2}
        strokeOpacity={p.data?.executed ? 1 : 0.85}
        strokeDasharray={p.data?.executed ? '10 4' : undefined}
        className="sn-wire-path"
      />
    </g>
  );
}

export const WireView = memo(WireViewImpl);
