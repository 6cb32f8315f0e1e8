// The right-hand panels: the selected node, the variables, the problems, the runs. Each edit
// here is one named store action (one undo step).
import { useReactFlow } from '@xyflow/react';
import { useStudio, type Tab } from './store';
import { Inspector, Problems, Variables } from './Panels';
import { Runs } from './Runs';
import { selectDiagsByNode, selectLinkedInputs, selectPins } from './derive';
import { baseKind, EMPTY_PINS } from './graph';
import * as E from './edits';
import { deleteSelection } from './commands';

export function SidePanel() {
  const rf = useReactFlow();
  const tab = useStudio((s) => s.tab);
  const diagCount = useStudio((s) => s.diags.length);
  const model = useStudio((s) => s.model);
  const diags = useStudio((s) => s.diags);
  const selected = useStudio((s) => (s.selection.nodes.size === 1 ? [...s.selection.nodes][0] : null));
  const node = model?.nodes.find((n) => n.id === selected) ?? null;
  const pins = useStudio((s) => (node ? selectPins(s).get(node.id) : undefined)) ?? EMPTY_PINS;
  const linked = useStudio((s) => (node ? selectLinkedInputs(s).get(node.id) : undefined));
  const nodeDiags = useStudio((s) => (node ? selectDiagsByNode(s).get(node.id) : undefined));
  const vocab = useStudio((s) => s.vocab);
  const s = useStudio.getState;
  const edit = (f: (m: NonNullable<typeof model>) => ReturnType<typeof E.setProp>) => {
    const m = s().model;
    if (m) s().commit(f(m));
  };
  const editOrSay = (f: (m: NonNullable<typeof model>) => ReturnType<typeof E.renameNode>): string | null => {
    const m = s().model;
    if (!m) return null;
    const r = f(m);
    if (typeof r === 'string') return r;
    s().commit(r);
    return null;
  };
  const focusNode = (id: string) => {
    s().select({ nodes: new Set([id]) });
    s().showTab('node');
    const n = rf.getNode(id);
    if (n) rf.setCenter(n.position.x + 110, n.position.y + 40, { zoom: Math.max(rf.getZoom(), 0.9), duration: 200 });
  };
  const tabs: [Tab, string][] = [
    ['node', 'Node'],
    ['vars', 'Variables'],
    ['problems', `Problems ${diagCount}`],
    ['run', 'Run'],
  ];
  return (
    <aside className="right">
      <nav className="tabs">
        {tabs.map(([t, label]) => (
          <button key={t} className={tab === t ? 'on' : ''} onClick={() => s().showTab(t)} data-tab={t}>
            {label}
          </button>
        ))}
      </nav>
      <div className="panel">
        {tab === 'node' &&
          (node && model ? (
            <Inspector
              node={node}
              model={model}
              pins={pins}
              info={vocab.kinds.get(baseKind(node.kind))}
              palette={vocab.palette}
              linked={linked ?? []}
              diagnostics={nodeDiags ?? []}
              onRename={(to) => {
                const r = editOrSay((m) => E.renameNode(m, node.id, to));
                if (!r) s().select({ nodes: new Set([to]) });
                return r;
              }}
              onKind={(k) => edit((m) => E.setKind(m, node.id, k))}
              onProp={(name, v) => edit((m) => E.setProp(m, node.id, name, v))}
              onComment={(c) => edit((m) => E.setComment(m, node.id, c))}
              onDelete={deleteSelection}
            />
          ) : (
            <div className="hint">
              Select a node to edit it. Drag kinds from the palette, or right-click, press Space or double-click the canvas to
              search. Connect pins by dragging; Ctrl+S saves.
            </div>
          ))}
        {tab === 'vars' && model && (
          <Variables
            model={model}
            onAdd={(name, type) => editOrSay((m) => E.addVar(m, name, type))}
            onRename={(from, to) => editOrSay((m) => E.renameVar(m, from, to))}
            onType={(name, type) => edit((m) => E.setVarType(m, name, type))}
            onDefault={(name, v) => edit((m) => E.setVarDefault(m, name, v))}
          />
        )}
        {tab === 'problems' && <Problems diagnostics={diags} onSelect={focusNode} />}
        {tab === 'run' && model && <Runs graph={model.graph} />}
      </div>
    </aside>
  );
}
