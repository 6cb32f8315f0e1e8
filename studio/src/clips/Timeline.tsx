// The clip's timeline: a ruler with frame ticks at the clip's sample rate, one lane per notify
// target group (point notifies as markers, clustered when closer than a few pixels), one lane
// per window target group (bars with draggable edges), the curves as small plots, and the
// playhead. Markers and edges snap to frames while dragged (Shift: free); a drag is one edit.
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import type { Clip, Curve, Edit, Notify, Window } from './api';
import { clusters, freshId, laneOf, snap } from './model';

export const LABEL = 96;
const MIN_MARKER_PX = 8;

export type Selection = { kind: 'notify' | 'window'; id: string } | null;

interface Drag {
  kind: 'notify' | 'begin' | 'end' | 'window';
  id: string;
  x0: number;
  a: number;
  b: number;
  na: number;
  nb: number;
}

interface Props {
  clip: Clip;
  time: number;
  /** Set to a function that moves the playhead to a time directly (no render: playback). */
  mover: { current: ((t: number) => void) | null };
  selected: Selection;
  flash: Set<string>;
  onSelect: (s: Selection) => void;
  onEdit: (e: Edit, select?: Selection) => void;
  onSeek: (t: number) => void;
}

function niceStep(minSeconds: number): number {
  const steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600];
  return steps.find((s) => s >= minSeconds) ?? 1200;
}

export function Timeline({ clip, time, mover, selected, flash, onSelect, onEdit, onSeek }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const head = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  const [zoom, setZoom] = useState(1);
  const [drag, setDrag] = useState<Drag | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  const d = clip.duration;
  const pps = (Math.max(width - LABEL - 24, 100) / d) * zoom;
  const inner = LABEL + d * pps + 24;
  const x = (t: number) => LABEL + t * pps;
  mover.current = (t: number) => {
    const el = head.current;
    if (!el) return;
    el.style.left = `${x(t)}px`;
    el.setAttribute('data-playhead', String(t));
  };
  const tAt = (clientX: number) => {
    const el = box.current;
    if (!el) return 0;
    const r = el.getBoundingClientRect();
    return (clientX - r.left + el.scrollLeft - LABEL) / pps;
  };

  // The clip as it looks during a drag.
  const shown = useMemo(() => {
    if (!drag) return clip;
    if (drag.kind === 'notify') return { ...clip, notifies: clip.notifies.map((n) => (n.id === drag.id ? { ...n, time: drag.na } : n)) };
    return { ...clip, windows: clip.windows.map((w) => (w.id === drag.id ? { ...w, begin: drag.na, end: drag.nb } : w)) };
  }, [clip, drag]);

  const start = (e: React.PointerEvent, kind: Drag['kind'], id: string, a: number, b: number) => {
    if (e.button !== 0) return;
    e.stopPropagation();
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    onSelect({ kind: kind === 'notify' ? 'notify' : 'window', id });
    setDrag({ kind, id, x0: e.clientX, a, b, na: a, nb: b });
  };
  const move = (e: React.PointerEvent) => {
    if (!drag) return;
    const dt = (e.clientX - drag.x0) / pps;
    const s = (t: number) => snap(t, clip.sample_rate, d, e.shiftKey);
    let { na, nb } = drag;
    if (drag.kind === 'notify') na = s(drag.a + dt);
    else if (drag.kind === 'begin') na = Math.min(s(drag.a + dt), drag.b - 1 / clip.sample_rate / (e.shiftKey ? 100 : 1));
    else if (drag.kind === 'end') nb = Math.max(s(drag.b + dt), drag.a + 1 / clip.sample_rate / (e.shiftKey ? 100 : 1));
    else {
      const len = drag.b - drag.a;
      na = Math.min(Math.max(s(drag.a + dt), 0), d - len);
      nb = snap(na + len, 1e6, d, true);
    }
    setDrag({ ...drag, na, nb });
  };
  const end = () => {
    if (!drag) return;
    setDrag(null);
    if (drag.kind === 'notify') {
      if (drag.na !== drag.a) onEdit({ op: 'set_notify', id: drag.id, notify: { time: drag.na } });
    } else if (drag.na !== drag.a || drag.nb !== drag.b) {
      const w: Partial<Window> = {};
      if (drag.na !== drag.a) w.begin = drag.na;
      if (drag.nb !== drag.b) w.end = drag.nb;
      onEdit({ op: 'set_window', id: drag.id, window: w });
    }
  };

  const noteLanes = useMemo(() => {
    const names = new Set<string>(['owner', ...shown.notifies.map(laneOf)]);
    return [...names];
  }, [shown.notifies]);
  const windowLanes = useMemo(() => [...new Set<string>(shown.windows.map(laneOf))], [shown.windows]);

  const addNotify = (e: React.MouseEvent, lane: string) => {
    const t = snap(tAt(e.clientX), clip.sample_rate, d, e.shiftKey);
    const id = freshId(clip, 'notify');
    onEdit({ op: 'add_notify', notify: { id, name: id, time: t, ...(lane === 'owner' ? {} : { target: lane }) } }, { kind: 'notify', id });
  };
  const addWindow = (e: React.MouseEvent, lane: string) => {
    const a = snap(tAt(e.clientX), clip.sample_rate, d, e.shiftKey);
    const b = Math.min(d, snap(a + Math.max(d / 10, 1 / clip.sample_rate), clip.sample_rate, d, false));
    const begin = b > a ? a : Math.max(0, b - 1 / clip.sample_rate);
    const id = freshId(clip, 'window');
    onEdit({ op: 'add_window', window: { id, name: id, begin, end: b, ...(lane === 'owner' ? {} : { target: lane }) } }, { kind: 'window', id });
  };

  return (
    <div className="tl-wrap">
      <div className="tl-tools">
        <span>
          {clip.name} · {d} s · {clip.sample_rate} fps · {clip.notifies.length} notifies · {clip.windows.length} windows
        </span>
        <button onClick={() => setZoom((z) => Math.max(1, z / 2))} data-testid="zoom-out">−</button>
        <button onClick={() => setZoom((z) => Math.min(z * 2, 4096))} data-testid="zoom-in">+</button>
        <button onClick={() => setZoom(1)}>Fit</button>
        <span className="muted">double-click a lane to add · drag to move (Shift: free) · Delete removes</span>
      </div>
      <div
        className="tl"
        ref={box}
        onPointerMove={move}
        onPointerUp={end}
        onWheel={(e) => {
          if (!e.ctrlKey) return;
          e.preventDefault();
          setZoom((z) => Math.min(Math.max(1, z * (e.deltaY < 0 ? 1.25 : 0.8)), 4096));
        }}
      >
        <div className="tl-inner" style={{ width: inner }}>
          <Ruler d={d} rate={clip.sample_rate} pps={pps} width={inner} onSeek={(ev) => onSeek(Math.min(Math.max(tAt(ev), 0), d))} />
          {noteLanes.map((lane) => (
            <NotifyLane
              key={`n-${lane}`}
              lane={lane}
              notifies={shown.notifies.filter((n) => laneOf(n) === lane)}
              pps={pps}
              selected={selected?.kind === 'notify' ? selected.id : null}
              flash={flash}
              onDouble={(e) => addNotify(e, lane)}
              onDown={(e, n) => start(e, 'notify', n.id, n.time, n.time)}
              onZoom={(t) => {
                setZoom((z) => Math.min(z * 4, 4096));
                requestAnimationFrame(() => box.current && (box.current.scrollLeft = x(t) * 4 - width / 2));
              }}
            />
          ))}
          {[...windowLanes, ...(windowLanes.includes('owner') ? [] : ['owner'])].map((lane) => (
            <div key={`w-${lane}`} className="tl-lane tl-wlane" data-lane={`windows:${lane}`} onDoubleClick={(e) => addWindow(e, lane)}>
              <span className="tl-label">windows · {lane}</span>
              {shown.windows
                .filter((w) => laneOf(w) === lane)
                .map((w) => (
                  <div
                    key={w.id}
                    className={`tl-bar${selected?.kind === 'window' && selected.id === w.id ? ' sel' : ''}`}
                    data-window-id={w.id}
                    title={`${w.name} (${w.begin}–${w.end} s)`}
                    style={{ left: x(w.begin), width: Math.max((w.end - w.begin) * pps, 3) }}
                    onPointerDown={(e) => start(e, 'window', w.id, w.begin, w.end)}
                    onDoubleClick={(e) => e.stopPropagation()}
                  >
                    <span className="tl-edge begin" data-edge="begin" onPointerDown={(e) => start(e, 'begin', w.id, w.begin, w.end)} />
                    <span className="tl-bar-name">{w.name}</span>
                    <span className="tl-edge end" data-edge="end" onPointerDown={(e) => start(e, 'end', w.id, w.begin, w.end)} />
                  </div>
                ))}
            </div>
          ))}
          {clip.curves.map((c) => (
            <CurvePlot key={c.name} curve={c} pps={pps} d={d} />
          ))}
          <div className="tl-playhead" ref={head} data-playhead={time} style={{ left: x(time) }} />
        </div>
      </div>
    </div>
  );
}

const Ruler = memo(function Ruler({ d, rate, pps, width, onSeek }: { d: number; rate: number; pps: number; width: number; onSeek: (clientX: number) => void }) {
  const frame = pps / rate;
  let k = 1;
  while (frame * k < 6) k = k < 5 ? k + (k === 1 ? 1 : 3) : k * 2;
  const frames = Math.floor(d * rate + 1e-9);
  let path = '';
  for (let f = 0; f <= frames; f += k) {
    const px = LABEL + (f / rate) * pps;
    path += `M${px.toFixed(1)} 16V24`;
  }
  const step = niceStep(60 / pps);
  const labels: number[] = [];
  for (let t = 0; t <= d + 1e-9; t += step) labels.push(Math.round(t * 1000) / 1000);
  const seeking = useRef(false);
  return (
    <div
      className="tl-ruler"
      data-testid="ruler"
      onPointerDown={(e) => {
        seeking.current = true;
        (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
        onSeek(e.clientX);
      }}
      onPointerMove={(e) => seeking.current && onSeek(e.clientX)}
      onPointerUp={() => (seeking.current = false)}
    >
      <svg width={width} height={26}>
        <path d={path} stroke="#666" strokeWidth={1} data-frame-ticks={Math.floor(frames / k) + 1} />
        {labels.map((t) => (
          <g key={t}>
            <line x1={LABEL + t * pps} x2={LABEL + t * pps} y1={8} y2={26} stroke="#aaa" />
            <text x={LABEL + t * pps + 3} y={11} fill="#aaa" fontSize={10}>
              {t}s
            </text>
          </g>
        ))}
      </svg>
    </div>
  );
});

interface LaneProps {
  lane: string;
  notifies: Notify[];
  pps: number;
  selected: string | null;
  flash: Set<string>;
  onDouble: (e: React.MouseEvent) => void;
  onDown: (e: React.PointerEvent, n: Notify) => void;
  onZoom: (t: number) => void;
}

const NotifyLane = memo(function NotifyLane({ lane, notifies, pps, selected, flash, onDouble, onDown, onZoom }: LaneProps) {
  const byId = useMemo(() => new Map(notifies.map((n) => [n.id, n])), [notifies]);
  const groups = useMemo(() => clusters(notifies, pps, MIN_MARKER_PX), [notifies, pps]);
  return (
    <div className="tl-lane" data-lane={lane} onDoubleClick={onDouble}>
      <span className="tl-label">{lane === 'owner' ? 'notifies · owner' : `notifies · ${lane}`}</span>
      {groups.map((g) => {
        const left = LABEL + g.time * pps;
        if (g.ids.length > 1)
          return (
            <div
              key={`c${g.ids[0]}`}
              className="tl-cluster"
              data-cluster-count={g.ids.length}
              title={`${g.ids.length} notifies: click to zoom in`}
              style={{ left }}
              onClick={() => onZoom(g.time)}
              onDoubleClick={(e) => e.stopPropagation()}
            >
              {g.ids.length}
            </div>
          );
        const n = byId.get(g.ids[0])!;
        return (
          <div
            key={n.id}
            className={`tl-marker${selected === n.id ? ' sel' : ''}`}
            data-notify-id={n.id}
            data-time={n.time}
            data-flash={flash.has(n.id) ? 'true' : undefined}
            title={`${n.name} (${n.time} s)`}
            style={{ left }}
            onPointerDown={(e) => onDown(e, n)}
            onDoubleClick={(e) => e.stopPropagation()}
          >
            <span className="tl-marker-name">{n.name}</span>
          </div>
        );
      })}
    </div>
  );
});

const CurvePlot = memo(function CurvePlot({ curve, pps, d }: { curve: Curve; pps: number; d: number }) {
  const vals = curve.keys.map(([, v]) => (Array.isArray(v) ? Math.hypot(...v) : v));
  const lo = vals.reduce((a, b) => Math.min(a, b), 0);
  const hi = vals.reduce((a, b) => Math.max(a, b), lo + 1e-9);
  const y = (v: number) => 26 - ((v - lo) / (hi - lo)) * 22;
  let pts = curve.keys.map(([t], i) => `${LABEL + t * pps},${y(vals[i])}`);
  if (curve.interpolation === 'step')
    pts = curve.keys.flatMap(([t], i) => (i === 0 ? [`${LABEL + t * pps},${y(vals[i])}`] : [`${LABEL + t * pps},${y(vals[i - 1])}`, `${LABEL + t * pps},${y(vals[i])}`]));
  const last = curve.keys[curve.keys.length - 1];
  if (last) pts.push(`${LABEL + d * pps},${y(vals[vals.length - 1])}`);
  return (
    <div className="tl-lane tl-curve" data-curve={curve.name}>
      <span className="tl-label">curve · {curve.name}</span>
      <svg width={LABEL + d * pps + 4} height={30}>
        <polyline points={pts.join(' ')} fill="none" stroke="#6fcf97" strokeWidth={1.5} />
      </svg>
    </div>
  );
});
