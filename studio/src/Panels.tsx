// The side panels: node inspector (id, kind, literal inputs, properties, comment), variables
// (add, rename, type, default), problems (select the node they name) and runs (the trace list:
// selecting a record highlights the nodes that ran for it).
import { useEffect, useState } from 'react';
import { RawNum, type Diagnostic, type KindInfo, type Lit, type Model, type ModelNode } from './api';
import { IDENT, baseKind, litText, type NodePins } from './graph';

const TYPES = ['bool', 'int', 'float', 'string', 'vec3', 'entity'];

/** Parses what a person typed for a literal of type `t`; null when it is not one. */
export function parseLit(t: string, text: string): Lit | null {
  const s = text.trim();
  switch (t) {
    case 'bool':
      return s === 'true' ? true : s === 'false' ? false : null;
    case 'int':
      return /^-?\d+$/.test(s) ? (Number.isSafeInteger(Number(s)) ? Number(s) : new RawNum(s)) : null;
    case 'float':
      if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s) || !Number.isFinite(Number(s))) return null;
      return /[.eE]/.test(s) && Number.isInteger(Number(s)) ? new RawNum(s) : Number(s);
    case 'vec3': {
      const parts = s.replace(/[()]/g, '').split(',').map((x) => x.trim());
      if (parts.length !== 3) return null;
      const nums = parts.map((p) => parseLit('float', p) ?? parseLit('int', p));
      return nums.every((n) => n !== null) ? (nums as Array<number | RawNum>) : null;
    }
    default:
      return text;
  }
}

function editText(v: Lit | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(String).join(', ');
  return String(v);
}

function LitField(props: { type: string; value: Lit | undefined; onChange: (v: Lit | undefined) => void; label: string }) {
  const [text, setText] = useState(editText(props.value));
  const [bad, setBad] = useState(false);
  useEffect(() => setText(editText(props.value)), [props.value]);
  if (props.type === 'bool') {
    return (
      <label className="field">
        <span>{props.label}</span>
        <input
          type="checkbox"
          data-field={props.label}
          checked={props.value === true}
          onChange={(e) => props.onChange(e.target.checked)}
        />
      </label>
    );
  }
  return (
    <label className="field">
      <span>{props.label}</span>
      <input
        className={bad ? 'bad' : ''}
        data-field={props.label}
        value={text}
        placeholder={props.type}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => commit()}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
      />
    </label>
  );
  function commit() {
    if (text.trim() === '' && props.type !== 'string') {
      setBad(false);
      props.onChange(undefined);
      return;
    }
    const v = parseLit(props.type, text);
    setBad(v === null);
    if (v !== null && litText(v) !== litText(props.value)) props.onChange(v);
  }
}

export function Inspector(props: {
  node: ModelNode;
  pins: NodePins;
  info: KindInfo | undefined;
  linked: string[];
  diagnostics: Diagnostic[];
  onRename: (to: string) => string | null;
  onKind: (kind: string) => void;
  onProp: (name: string, v: Lit | undefined) => void;
  onComment: (c: string) => void;
  onDelete: () => void;
}) {
  const { node } = props;
  const [id, setId] = useState(node.id);
  const [kind, setKind] = useState(node.kind);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    setId(node.id);
    setKind(node.kind);
    setErr(null);
  }, [node.id, node.kind]);
  const literalPins = props.pins.inputs.filter((p) => p.type !== 'exec' && !props.linked.includes(p.name));
  const propDefs = props.info?.properties ?? [];
  return (
    <div className="inspector" data-testid="inspector">
      <h3>Node</h3>
      <label className="field">
        <span>id</span>
        <input
          data-field="id"
          value={id}
          onChange={(e) => setId(e.target.value)}
          onBlur={() => id !== node.id && setErr(props.onRename(id))}
          onKeyDown={(e) => e.key === 'Enter' && id !== node.id && setErr(props.onRename(id))}
        />
      </label>
      {err && <div className="error-text">{err}</div>}
      <label className="field">
        <span>kind</span>
        <input
          data-field="kind"
          value={kind}
          onChange={(e) => setKind(e.target.value)}
          onBlur={() => kind.trim() && kind !== node.kind && props.onKind(kind.trim())}
          onKeyDown={(e) => e.key === 'Enter' && kind.trim() && kind !== node.kind && props.onKind(kind.trim())}
        />
      </label>
      {propDefs.map((p) => (
        <LitField
          key={`p-${p.name}`}
          label={p.name}
          type={p.type}
          value={node.props[p.name]}
          onChange={(v) => props.onProp(p.name, v)}
        />
      ))}
      {literalPins.length > 0 && <h4>Inputs</h4>}
      {literalPins.map((p) => (
        <LitField
          key={`i-${p.name}`}
          label={p.name}
          type={p.type === 'var' ? 'string' : p.type}
          value={node.props[p.name]}
          onChange={(v) => props.onProp(p.name, v)}
        />
      ))}
      <label className="field col">
        <span>comment</span>
        <textarea
          data-field="comment"
          defaultValue={(node.comment ?? '').replace(/^\/\/ ?/gm, '')}
          key={node.id}
          onBlur={(e) => props.onComment(e.target.value)}
        />
      </label>
      {props.diagnostics.map((d, i) => (
        <div key={i} className={`diag ${d.severity}`}>
          {d.code}: {d.message}
        </div>
      ))}
      <button onClick={props.onDelete} className="danger">
        Delete node
      </button>
      <div className="hint">{baseKind(node.kind)}</div>
    </div>
  );
}

export function Variables(props: {
  model: Model;
  onAdd: (name: string, type: string) => string | null;
  onRename: (from: string, to: string) => string | null;
  onType: (name: string, type: string) => void;
  onDefault: (name: string, v: Lit) => void;
}) {
  const [name, setName] = useState('');
  const [type, setType] = useState('int');
  const [err, setErr] = useState<string | null>(null);
  return (
    <div className="variables" data-testid="variables">
      <h3>Variables</h3>
      {props.model.vars.map((v) => (
        <VarRow key={v.name} v={v} {...props} />
      ))}
      <div className="var-add">
        <input placeholder="new variable" value={name} data-field="new-var" onChange={(e) => setName(e.target.value)} />
        <select value={type} onChange={(e) => setType(e.target.value)} data-field="new-var-type">
          {TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <button
          onClick={() => {
            const e = props.onAdd(name.trim(), type);
            setErr(e);
            if (!e) setName('');
          }}
        >
          Add
        </button>
      </div>
      {err && <div className="error-text">{err}</div>}
    </div>
  );
}

function VarRow(props: {
  v: Model['vars'][number];
  onRename: (from: string, to: string) => string | null;
  onType: (name: string, type: string) => void;
  onDefault: (name: string, v: Lit) => void;
}) {
  const { v } = props;
  const [name, setName] = useState(v.name);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => setName(v.name), [v.name]);
  const rename = () => {
    if (name !== v.name) setErr(props.onRename(v.name, name.trim()));
  };
  return (
    <div className="var-row" data-var={v.name}>
      <input value={name} onChange={(e) => setName(e.target.value)} onBlur={rename} onKeyDown={(e) => e.key === 'Enter' && rename()} />
      <select value={v.type} onChange={(e) => props.onType(v.name, e.target.value)}>
        {TYPES.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <LitField label="=" type={v.type} value={v.default} onChange={(x) => x !== undefined && props.onDefault(v.name, x)} />
      {err && <div className="error-text">{err}</div>}
    </div>
  );
}

export function Problems(props: { diagnostics: Diagnostic[]; onSelect: (node: string) => void }) {
  return (
    <div className="problems" data-testid="problems">
      <h3>
        Problems <span className="count">{props.diagnostics.length}</span>
      </h3>
      {props.diagnostics.length === 0 && <div className="hint">No problems.</div>}
      {props.diagnostics.map((d, i) => (
        <div
          key={i}
          className={`problem ${d.severity}`}
          data-problem-code={d.code}
          data-problem-node={d.node}
          onClick={() => d.node && props.onSelect(d.node)}
        >
          <span className="code">{d.code}</span> {d.message}
          <span className="where">
            {d.node ? ` · ${d.node}` : ''} · line {d.line}
          </span>
        </div>
      ))}
    </div>
  );
}

export { IDENT };
