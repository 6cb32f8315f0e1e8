// A state machine (.animsm): the `sinew graph` picture of it, fetched again when the file
// changes, and — after a studio run of a scene — each entity's current state at the selected
// record marked (`data-current` on the picture's `data-state`), with the transition the
// entity last took marked too (`data-current` on its `data-transition`). The run's records
// carry state changes, not crossfade progress: the marked transition is the one taken most
// recently at or before the record.
import { useEffect, useMemo, useRef, useState } from 'react';
import { token } from '../api';

type Rec = Record<string, unknown>;

export function MachineView({ svg }: { svg: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [scenes, setScenes] = useState<string[]>([]);
  const [scene, setScene] = useState('');
  const [ticks, setTicks] = useState(120);
  const [records, setRecords] = useState<Rec[]>([]);
  const [at, setAt] = useState(0);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    fetch('/api/scenes')
      .then((r) => r.json())
      .then((d) => {
        setScenes(d.scenes ?? []);
        setScene((s) => s || d.scenes?.[0] || '');
      })
      .catch(() => {});
  }, []);
  const run = async () => {
    setErr(null);
    const r = await fetch('/api/run', {
      method: 'POST',
      headers: { 'X-Sinew-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ scene, ticks }),
    });
    const d = await r.json();
    if (!r.ok) return setErr(d.error ?? r.statusText);
    setRecords(d.records ?? []);
    setAt(Math.max(0, (d.records ?? []).length - 1));
  };
  // Per entity: its state and last transition at record `at`.
  const current = useMemo(() => {
    const m = new Map<string, { state: string; from: string }>();
    records.slice(0, at + 1).forEach((r) => {
      if (r.kind === 'state') m.set(String(r.entity), { state: String(r.to), from: String(r.from) });
    });
    return m;
  }, [records, at]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.querySelectorAll('[data-current]').forEach((n) => n.removeAttribute('data-current'));
    for (const { state, from } of current.values()) {
      el.querySelectorAll(`[data-state="${CSS.escape(state)}"]`).forEach((n) => n.setAttribute('data-current', 'true'));
      el.querySelectorAll(`[data-transition="${CSS.escape(`${from} -> ${state}`)}"]`).forEach((n) => n.setAttribute('data-current', 'true'));
    }
  }, [current, svg]);
  const rec = records[at];
  return (
    <div className="mv">
      <div className="mv-run">
        <select value={scene} onChange={(e) => setScene(e.target.value)} data-testid="machine-scene">
          {scenes.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input type="number" min={1} max={10000} value={ticks} onChange={(e) => setTicks(Number(e.target.value))} style={{ width: 80 }} />
        <button onClick={run} data-testid="machine-run">
          Run
        </button>
        {records.length > 0 && (
          <>
            <input type="range" min={0} max={records.length - 1} value={at} onChange={(e) => setAt(Number(e.target.value))} data-testid="machine-record" />
            <span className="muted">
              record {at + 1}/{records.length}
              {rec ? ` · tick ${String(rec.tick ?? '')} · ${String(rec.kind)}` : ''}
            </span>
          </>
        )}
        {err && <span className="mp-err">{err}</span>}
      </div>
      {current.size > 0 && (
        <div className="mv-legend" data-testid="machine-states">
          {[...current].map(([e, s]) => (
            <span key={e} data-entity={e} data-entity-state={s.state}>
              {e}: <b>{s.state}</b> (from {s.from})
            </span>
          ))}
        </div>
      )}
      <div className="cl-machine" data-testid="machine" ref={box} dangerouslySetInnerHTML={{ __html: svg }} />
    </div>
  );
}
