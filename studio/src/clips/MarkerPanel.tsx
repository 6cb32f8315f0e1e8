// The side panel: the selected notify's or window's ID, name, time (or begin and end), target,
// typed fields, weight_threshold and chance. Each committed change (Enter or leaving the
// field) is one edit, so one undo step.
import { useState } from 'react';
import type { Edit, Field, Notify, Window } from './api';

interface Props {
  kind: 'notify' | 'window';
  marker: Notify | Window;
  duration: number;
  onEdit: (e: Edit) => void;
  onRemove: () => void;
}

function Text({ label, value, testid, onCommit }: { label: string; value: string; testid: string; onCommit: (v: string) => void }) {
  const [v, setV] = useState(value);
  const [was, setWas] = useState(value);
  if (was !== value) {
    setWas(value);
    setV(value);
  }
  const commit = () => v !== value && onCommit(v);
  return (
    <label className="mp-row">
      <span>{label}</span>
      <input
        value={v}
        data-testid={testid}
        onChange={(e) => setV(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
          if (e.key === 'Escape') setV(value);
        }}
      />
    </label>
  );
}

function num(s: string): number | null {
  const x = Number(s);
  return s.trim() !== '' && Number.isFinite(x) ? x : null;
}

const TYPES: Field['type'][] = ['bool', 'int', 'float', 'string', 'vec3'];

function defaultValue(t: Field['type']): Field['value'] {
  return t === 'bool' ? false : t === 'string' ? '' : t === 'vec3' ? [0, 0, 0] : 0;
}

function parseValue(t: Field['type'], s: string): Field['value'] | null {
  if (t === 'bool') return s === 'true' ? true : s === 'false' ? false : null;
  if (t === 'string') return s;
  if (t === 'vec3') {
    const p = s.split(',').map((x) => num(x));
    return p.length === 3 && p.every((x) => x !== null) ? (p as number[]) : null;
  }
  const x = num(s);
  if (x === null) return null;
  return t === 'int' ? (Number.isInteger(x) ? x : null) : x;
}

export function MarkerPanel({ kind, marker, duration, onEdit, onRemove }: Props) {
  const [err, setErr] = useState<string | null>(null);
  const set = (patch: Partial<Notify & Window>) => {
    setErr(null);
    if (kind === 'notify') onEdit({ op: 'set_notify', id: marker.id, notify: patch });
    else onEdit({ op: 'set_window', id: marker.id, window: patch });
  };
  const number = (label: string, key: 'time' | 'begin' | 'end' | 'weight_threshold' | 'chance', lo: number, hi: number) => (
    <Text
      key={key}
      label={label}
      testid={`field-${key}`}
      value={String((marker as unknown as Record<string, number>)[key])}
      onCommit={(s) => {
        const x = num(s);
        if (x === null || x < lo || x > hi) setErr(`${label} must be a number from ${lo} to ${hi}`);
        else set({ [key]: x });
      }}
    />
  );
  const fields = marker.fields;
  const setFields = (f: Field[]) => set({ fields: f });
  return (
    <div className="mp" data-testid="marker-panel" data-marker-kind={kind}>
      <h3>
        {kind === 'notify' ? 'Notify' : 'Window'} <code>{marker.id}</code>
      </h3>
      <Text label="ID" value={marker.id} testid="field-id" onCommit={(v) => set({ id: v })} />
      <Text label="Name" value={marker.name} testid="field-name" onCommit={(v) => set({ name: v })} />
      {kind === 'notify' ? number('Time (s)', 'time', 0, duration) : [number('Begin (s)', 'begin', 0, duration), number('End (s)', 'end', 0, duration)]}
      <Text
        label="Target"
        value={marker.target ?? ''}
        testid="field-target"
        onCommit={(v) => set({ target: v.trim() === '' ? null : v.trim() })}
      />
      <p className="muted small">empty: the owner; else the graph variable holding the receiving entity</p>
      {number('Weight threshold', 'weight_threshold', 0, 1)}
      {number('Chance', 'chance', 0, 1)}
      <h4>Fields</h4>
      {fields.map((f, i) => (
        <div className="mp-field" key={`${i}-${f.name}`} data-field={f.name}>
          <Text
            label=""
            value={f.name}
            testid={`field-name-${i}`}
            onCommit={(v) => setFields(fields.map((g, j) => (j === i ? { ...g, name: v } : g)))}
          />
          <select
            value={f.type}
            onChange={(e) => {
              const t = e.target.value as Field['type'];
              setFields(fields.map((g, j) => (j === i ? { ...g, type: t, value: defaultValue(t) } : g)));
            }}
          >
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <Text
            label=""
            value={Array.isArray(f.value) ? f.value.join(', ') : String(f.value)}
            testid={`field-value-${i}`}
            onCommit={(s) => {
              const v = parseValue(f.type, s);
              if (v === null) setErr(`field ${f.name}: not a ${f.type}`);
              else setFields(fields.map((g, j) => (j === i ? { ...g, value: v } : g)));
            }}
          />
          <button title="Remove field" onClick={() => setFields(fields.filter((_, j) => j !== i))}>
            ×
          </button>
        </div>
      ))}
      <button
        onClick={() => {
          const used = new Set(fields.map((f) => f.name));
          let n = 1;
          while (used.has(`field_${n}`)) n++;
          setFields([...fields, { name: `field_${n}`, type: 'float', value: 0 }]);
        }}
      >
        Add field
      </button>
      {err && <p className="mp-err">{err}</p>}
      <button className="danger" onClick={onRemove} data-testid="remove-marker">
        Remove {kind}
      </button>
    </div>
  );
}
