// The clip as the page edits it: the loaded clip plus a list of pending edits (the batch a
// save sends). Undo pops an edit, redo pushes it back: one edit per action.
import type { Clip, Edit, Notify, Window } from './api';

/** The clip with `edits` applied (the server validates the same edits again on save). */
export function applyEdits(base: Clip, edits: Edit[]): Clip {
  let notifies = base.notifies;
  let windows = base.windows;
  for (const e of edits) {
    switch (e.op) {
      case 'add_notify':
        notifies = [...notifies, { name: e.notify.id ?? '', target: null, fields: [], weight_threshold: 0, chance: 1, time: 0, id: '', ...e.notify }];
        break;
      case 'set_notify':
        notifies = notifies.map((n) => (n.id === e.id ? { ...n, ...e.notify } : n));
        break;
      case 'remove_notify':
        notifies = notifies.filter((n) => n.id !== e.id);
        break;
      case 'add_window':
        windows = [...windows, { name: e.window.id ?? '', target: null, fields: [], weight_threshold: 0, chance: 1, begin: 0, end: 0, id: '', ...e.window }];
        break;
      case 'set_window':
        windows = windows.map((w) => (w.id === e.id ? { ...w, ...e.window } : w));
        break;
      case 'remove_window':
        windows = windows.filter((w) => w.id !== e.id);
        break;
    }
  }
  return { ...base, notifies, windows };
}

/** A fresh marker ID: `prefix_N` not used by any notify or window. */
export function freshId(clip: Clip, prefix: string): string {
  const used = new Set<string>([...clip.notifies.map((n) => n.id), ...clip.windows.map((w) => w.id)]);
  for (let i = 1; ; i++) if (!used.has(`${prefix}_${i}`)) return `${prefix}_${i}`;
}

/** `t` on the clip's frame grid (unless `free`), inside [0, duration]. */
export function snap(t: number, rate: number, duration: number, free: boolean): number {
  let x = free ? t : Math.round(t * rate) / rate;
  x = Math.min(Math.max(x, 0), duration);
  // Short decimals: a frame time is written as the nearest 1e-6, as an author would.
  return Math.round(x * 1e6) / 1e6;
}

/** The lane of a marker: one per target group (`owner` or the variable). */
export function laneOf(m: Notify | Window): string {
  return m.target ?? 'owner';
}

export interface Cluster {
  time: number;
  ids: string[];
}

/** Markers closer than `minPx` on screen merged into clusters (sorted by time). */
export function clusters(markers: Notify[], pxPerSec: number, minPx: number): Cluster[] {
  const sorted = [...markers].sort((a, b) => a.time - b.time);
  const out: Cluster[] = [];
  for (const m of sorted) {
    const last = out[out.length - 1];
    if (last && (m.time - last.time) * pxPerSec < minPx) last.ids.push(m.id);
    else out.push({ time: m.time, ids: [m.id] });
  }
  return out;
}

/** Markers crossed when playback advances from `a` to `b` (the crossings rule: `(a, b]`, wrapping when looping). */
export function crossed(notifies: Notify[], a: number, b: number, duration: number, looping: boolean): string[] {
  if (b === a) return [];
  const hit = (lo: number, hi: number) => notifies.filter((n) => n.time > lo && n.time <= hi).map((n) => n.id);
  if (b > a) return hit(a, b);
  if (!looping) return [];
  return [...hit(a, duration), ...hit(-1, b)];
}
