// A comment box: a titled, coloured rectangle behind its nodes (layout only). Dragged by its
// title it carries the nodes inside it; resized from its edges; the colour and title are
// edited on its bar. The body lets clicks through to wires and the canvas. Test hook:
// data-box-id (its index in the model's `boxes`).
import { memo } from 'react';
import { NodeResizer, type Node, type NodeProps } from '@xyflow/react';
import { useStudio } from './store';
import { updateBox } from './edits';

export interface BoxData extends Record<string, unknown> {
  index: number;
  title: string;
  color: string;
}

export type BoxNode = Node<BoxData, 'box'>;

function edit(i: number, f: Parameters<typeof updateBox>[2]) {
  const s = useStudio.getState();
  if (s.model) s.commit(updateBox(s.model, i, f));
}

function BoxViewImpl({ data, selected }: NodeProps<BoxNode>) {
  const c = data.color;
  return (
    <div className={`sn-box${selected ? ' selected' : ''}`} data-box-id={data.index} style={{ borderColor: c, background: `${c}26` }}>
      <NodeResizer
        isVisible={selected}
        minWidth={60}
        minHeight={40}
        lineStyle={{ borderColor: c }}
        onResizeEnd={(_e, p) =>
          edit(data.index, (b) => ({ ...b, x: Math.round(p.x), y: Math.round(p.y), w: Math.round(p.width), h: Math.round(p.height) }))
        }
      />
      <div className="sn-box-bar" style={{ background: c }}>
        <span
          className="sn-box-title"
          data-box-title
          onDoubleClick={() => {
            const t = prompt('Comment box title', data.title);
            if (t !== null && t !== data.title) edit(data.index, (b) => ({ ...b, title: t }));
          }}
        >
          {data.title}
        </span>
        <input
          type="color"
          className="nodrag"
          data-box-color
          defaultValue={c}
          key={c}
          // The native `change` (the picker closed): one undo step, not one per hue dragged.
          ref={(el) => {
            if (el)
              el.onchange = () => {
                const v = el.value;
                edit(data.index, (b) => (b.color === v ? null : { ...b, color: v }));
              };
          }}
        />
      </div>
    </div>
  );
}

export const BoxView = memo(BoxViewImpl);
export const DEFAULT_BOX_COLOR = '#3d5a80';
