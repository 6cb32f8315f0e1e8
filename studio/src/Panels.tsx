// The side panels: node inspector (id, kind, literal inputs, properties, comment), variables
// (add, rename, type, default), problems (select the node they name) and runs (the trace list:
// selecting a record highlights the nodes that ran for it).
import { useEffect, useMemo, useState } from 'react';
import { RawNum, type Diagnostic, type KindInfo, type Lit, type Model, type ModelNode, type PaletteEntry } from './api';
import { IDENT, baseKind, litText, subjectOf, type NodePins } from './graph';
import { fuzzy } from './Palette';

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

/** A node's kind, picked from the palette's kinds with a search (never typed free). */
function KindPicker(props: { node: ModelNode; model: Model; palette: Map<string, PaletteEntry>; onKind: (k: string) => void }) {
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  const entries = useMemo(() => [...props.palette.values()], [props.palette]);
  const hits = useMemo(() => fuzzy(entries, q).slice(0, 30), [entries, q]);
  const cur = baseKind(props.node.kind);
  const pick = (e: PaletteEntry) => {
    setOpen(false);
    setQ('');
    // A kind that takes a subject keeps the node's subject when it had one of the same sort.
    const sub = subjectOf(props.node.kind);
    let k = e.kind;
    if (e.kind === 'var.get' || e.kind === 'var.set') k = `${e.kind} ${cur.startsWith('var.') && sub ? sub : props.model.vars[0]?.name ?? 'my_var'}`;
    else if (e.kind === 'event custom') k = `event ${sub.startsWith('custom::') ? sub : 'custom::my_event'}`;
    else if (e.kind === 'event.send') k = `event.send ${sub.startsWith('custom::') ? sub : 'custom::my_event'}`;
    else if (e.kind === 'expr') k = `expr ${cur === 'expr' ? sub : '"a + b"'}`;
    if (k !== props.node.kind) props.onKind(k);
  };
  return (
    <div className="field kind-picker">
      <span>kind</span>
      <button data-field="kind" onClick={() => setOpen(!open)} title={props.node.kind}>
        {props.palette.get(cur)?.name ?? props.palette.get(props.node.kind)?.name ?? cur} ▾
      </button>
      {open && (
        <div className="kp-pop">
          <input autoFocus placeholder="Search kinds…" value={q} onChange={(e) => setQ(e.target.value)} data-field="kind-search" onKeyDown={(e) => {
            if (e.key === 'Escape') setOpen(false);
            if (e.key === 'Enter' && hits[0]) pick(hits[0]);
          }} />
          {hits.map((h) => (
            <div key={h.kind} className="qa-hit" data-kind-option={h.kind} onClick={() => pick(h)}>
              {h.name} <span>{h.kind}</span>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

export function Inspector(props: {
  node: ModelNode;
  model: Model;
  pins: NodePins;
  info: KindInfo | undefined;
  palette: Map<string, PaletteEntry>;
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
  const [subject, setSubject] = useState(subjectOf(node.kind));
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    setId(node.id);
    setSubject(subjectOf(node.kind));
    setErr(null);
  }, [node.id, node.kind]);
  const base = baseKind(node.kind);
  const literalPins = props.pins.inputs.filter((p) => p.type !== 'exec' && !props.linked.includes(p.name));
  const propDefs = props.info?.properties ?? [];
  const textSubject = base === 'expr' || base === 'event custom' || base === 'event.send';
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
      <KindPicker node={node} model={props.model} palette={props.palette} onKind={props.onKind} />
      {(base === 'var.get' || base === 'var.set') && (
        <label className="field">
          <span>variable</span>
          <select data-field="variable" value={subjectOf(node.kind)} onChange={(e) => props.onKind(`${base} ${e.target.value}`)}>
            {!props.model.vars.some((v) => v.name === subjectOf(node.kind)) && <option>{subjectOf(node.kind)}</option>}
            {props.model.vars.map((v) => (
              <option key={v.name} value={v.name}>
                {v.name}: {v.type}
              </option>
            ))}
          </select>
        </label>
      )}
      {textSubject && (
        <label className="field">
          <span>{base === 'expr' ? 'expression' : 'event'}</span>
          <input
            data-field="subject"
            value={subject}
            onChange={(e) => setSubject(e.target.value)}
            onBlur={() => commitSubject()}
            onKeyDown={(e) => e.key === 'Enter' && commitSubject()}
          />
        </label>
      )}
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
          {d.notes?.map((n, j) => (
            <div key={j} className="diag-note">
              {n}
            </div>
          ))}
        </div>
      ))}
      <button onClick={props.onDelete} className="danger">
        Delete
      </button>
      <div className="hint">{node.kind}</div>
    </div>
  );
  function commitSubject() {
    const sub = subject.trim();
    if (!sub || sub === subjectOf(node.kind)) return;
    props.onKind(base === 'event custom' ? `event ${sub}` : `${base} ${sub}`);
  }
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
          <span className="where" data-problem-where={`${d.file}:${d.line}:${d.column}`}>
            {d.node ? ` · ${d.node}` : ''} · {d.file}:{d.line}:{d.column}
          </span>
          {(d.notes ?? []).map((n, j) => (
            <div key={j} className="diag-note" data-problem-note>
              {n}
            </div>
          ))}
          {typeof (d as { help?: unknown }).help === 'string' && <div className="diag-note help">help: {String((d as { help?: unknown }).help)}</div>}
        </div>
      ))}
    </div>
  );
}

export { IDENT };
