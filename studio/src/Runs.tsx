// Runs (the debugger view): pick a scene, run N ticks, read the trace, filter it by entity and
// graph. Selecting a record highlights on the canvas the nodes that ran for it, in order, and
// the wires that carried execution, and shows here the record's payload, each executed node's
// input and output values and the variables before and after (when the server sends
// `values`). Says when the open graph is not in the scene that ran. Test hooks:
// data-trace-index, data-value="<node>.<pin>".
import { useEffect, useMemo, useState } from 'react';
import { api } from './api';
import { useStudio, type RunValues } from './store';

function summary(r: Record<string, unknown>): string {
  const k = String(r.kind);
  const who = r.entity ? `${r.entity}` : '';
  switch (k) {
    case 'notify':
      return `${who} ${String(r.event).split('.').pop()} (${r.clip})`;
    case 'log':
      return `${who} ${r.graph}: ${r.message}`;
    case 'state':
      return `${who} ${r.from} → ${r.to}`;
    case 'error':
      return `${who} ${r.graph ?? ''} ${r.node ?? ''}: ${r.message}`;
    case 'end': {
      const vars = r.vars as Record<string, unknown> | undefined;
      const v = vars ? Object.entries(vars).map(([k2, x]) => `${k2} = ${show(x)}`) : [];
      return `${who} end${r.graph ? ` ${r.graph}` : ''}${v.length ? `: ${v.join(', ')}` : ''}`;
    }
    default:
      return k;
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `(${v.map(show).join(', ')})`;
  if (v && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function Values(props: { label: string; node: string; values?: Record<string, unknown> }) {
  const entries = Object.entries(props.values ?? {});
  if (!entries.length) return null;
  return (
    <div className="vals">
      <span className="vals-label">{props.label}</span>
      {entries.map(([pin, v]) => (
        <span key={pin} className="val" data-value={`${props.node}.${pin}`}>
          {pin} = {show(v)}
        </span>
      ))}
    </div>
  );
}

function Invocation(props: { v: RunValues; open: boolean }) {
  const { v } = props;
  const vars = [...new Set([...Object.keys(v.vars_before ?? {}), ...Object.keys(v.vars_after ?? {})])];
  return (
    <div className={`invocation${props.open ? ' mine' : ''}`} data-invocation={`${v.graph}@${v.entity ?? ''}`}>
      <div className="inv-head">
        {v.graph} on {v.entity ?? '—'}
      </div>
      {Object.entries(v.nodes ?? {}).map(([node, io]) => (
        <div key={node} className="inv-node">
          <b>{node}</b>
          <Values label="in" node={node} values={io.inputs} />
          <Values label="out" node={node} values={io.outputs} />
        </div>
      ))}
      {vars.length > 0 && (
        <table className="vars-table">
          <thead>
            <tr>
              <th>variable</th>
              <th>before</th>
              <th>after</th>
            </tr>
          </thead>
          <tbody>
            {vars.map((k) => (
              <tr key={k} className={show(v.vars_before?.[k]) !== show(v.vars_after?.[k]) ? 'changed' : ''}>
                <td>{k}</td>
                <td data-var-before={k}>{show(v.vars_before?.[k])}</td>
                <td data-var-after={k}>{show(v.vars_after?.[k])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function Runs(props: { graph: string }) {
  const { ran, runLoaded } = useStudio.getState();
  const run = useStudio((s) => s.run);
  const record = useStudio((s) => s.record);
  const values = useStudio((s) => s.values);
  const [scenes, setScenes] = useState<string[]>([]);
  const [scene, setScene] = useState(run?.scene ?? '');
  const [ticks, setTicks] = useState(120);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [entity, setEntity] = useState('');
  const [graph, setGraph] = useState('');
  useEffect(() => {
    api
      .scenes()
      .then((s) => {
        setScenes(s.scenes);
        setScene((cur) => cur || s.scenes[0] || '');
      })
      .catch((e) => setError(String(e.message ?? e)));
  }, []);
  const go = async () => {
    setBusy(true);
    setError(null);
    setSelected(null);
    ran(null, null, null);
    try {
      runLoaded({ scene, ...(await api.run(scene, ticks)) });
    } catch (e) {
      setError(String((e as Error).message));
    } finally {
      setBusy(false);
    }
  };
  const entities = useMemo(() => [...new Set((run?.records ?? []).map((r) => r.entity).filter(Boolean).map(String))].sort(), [run]);
  const graphs = useMemo(() => [...new Set((run?.executed ?? []).flat().map((e) => e.graph))].sort(), [run]);
  const inScene = !run || graphs.includes(props.graph) || (run.records ?? []).some((r) => r.graph === props.graph);
  return (
    <div className="runs" data-testid="runs">
      <h3>Run</h3>
      <div className="run-bar">
        <select value={scene} onChange={(e) => setScene(e.target.value)} data-field="scene">
          {scenes.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input
          type="number"
          min={1}
          max={100000}
          value={ticks}
          data-field="ticks"
          onChange={(e) => setTicks(Math.max(1, Number(e.target.value) || 1))}
        />
        <button onClick={go} disabled={!scene || busy} data-testid="run">
          {busy ? 'Running…' : 'Run'}
        </button>
      </div>
      {error && <div className="error-text">{error}</div>}
      {run?.notice && <div className="hint">{run.notice}</div>}
      {run && !inScene && (
        <div className="banner-inline" data-testid="not-in-scene">
          This graph (<b>{props.graph}</b>) is not in the scene that ran ({run.scene}): nothing of it ran. Attach it to an entity
          there — add <code>"{props.graph}"</code> to an entity's <code>graphs</code> in <code>{run.scene}</code> — then run again.
        </div>
      )}
      {run && (
        <div className="run-filter">
          <select value={entity} onChange={(e) => setEntity(e.target.value)} data-field="filter-entity">
            <option value="">every entity</option>
            {entities.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
          <select value={graph} onChange={(e) => setGraph(e.target.value)} data-field="filter-graph">
            <option value="">every graph</option>
            {graphs.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </div>
      )}
      {run && (
        <div className="trace">
          {run.records.map((r, i) => {
            const ex = run.executed[i] ?? [];
            if (entity && String(r.entity ?? '') !== entity) return null;
            if (graph && !ex.some((e) => e.graph === graph) && r.graph !== graph) return null;
            const here = ex.filter((e) => e.graph === props.graph);
            return (
              <div
                key={i}
                data-trace-index={i}
                data-trace-kind={String(r.kind)}
                className={`trace-rec ${String(r.kind)}${selected === i ? ' selected' : ''}${here.length ? ' mine' : ''}`}
                onClick={() => {
                  setSelected(i);
                  ran(ex, (run.values?.[i] as RunValues[] | undefined) ?? null, r);
                }}
              >
                <span className="tick">{r.tick !== undefined ? `t${r.tick}` : ''}</span>
                <span className="kind">{String(r.kind)}</span>
                <span className="what">{summary(r)}</span>
                {ex.length > 0 && <span className="ran">{ex.reduce((a, e) => a + e.nodes.length, 0)} nodes</span>}
              </div>
            );
          })}
        </div>
      )}
      {record && (
        <div className="run-detail" data-testid="run-detail">
          <h4>Record</h4>
          <div className="payload" data-testid="payload">
            {Object.entries(record).map(([k, v]) => (
              <div key={k} data-payload={k}>
                <span className="pk">{k}</span> {show(v)}
              </div>
            ))}
          </div>
          {values ? (
            values.map((v, j) => <Invocation key={j} v={v} open={v.graph === props.graph} />)
          ) : (
            <div className="hint">This server sends no node values for runs; the canvas shows which nodes ran.</div>
          )}
        </div>
      )}
    </div>
  );
}
