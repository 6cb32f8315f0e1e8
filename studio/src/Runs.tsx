// Runs: pick a scene, run N ticks, read the trace; selecting a record highlights (on the
// canvas) the nodes that ran for it, in order. Test hook: data-trace-index.
import { useEffect, useState } from 'react';
import { api, type RunDoc } from './api';
import { useStudio } from './store';

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
    case 'end':
      return `${who} end`;
    default:
      return k;
  }
}

export function Runs(props: { graph: string }) {
  const ran = useStudio((s) => s.ran);
  const [scenes, setScenes] = useState<string[]>([]);
  const [scene, setScene] = useState('');
  const [ticks, setTicks] = useState(120);
  const [run, setRun] = useState<RunDoc | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
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
      setRun(await api.run(scene, ticks));
    } catch (e) {
      setError(String((e as Error).message));
    } finally {
      setBusy(false);
    }
  };
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
      {run && (
        <div className="trace">
          {run.records.map((r, i) => {
            const ex = run.executed[i] ?? [];
            const here = ex.filter((e) => e.graph === props.graph);
            return (
              <div
                key={i}
                data-trace-index={i}
                data-trace-kind={String(r.kind)}
                className={`trace-rec ${String(r.kind)}${selected === i ? ' selected' : ''}${here.length ? ' mine' : ''}`}
                onClick={() => {
                  setSelected(i);
                  ran(ex, run.values?.[i] ?? null, r);
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
    </div>
  );
}
