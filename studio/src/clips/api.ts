// The clip endpoints (docs/studio.md, "Clips"): list, read, save as edits, poses, crossings,
// state machines. Every request carries the per-run token.
import { token } from '../api';

export interface Field {
  name: string;
  type: 'bool' | 'int' | 'float' | 'string' | 'vec3';
  value: boolean | number | string | number[];
}
export interface Notify {
  id: string;
  name: string;
  time: number;
  target: string | null;
  fields: Field[];
  weight_threshold: number;
  chance: number;
}
export interface Window {
  id: string;
  name: string;
  begin: number;
  end: number;
  target: string | null;
  fields: Field[];
  weight_threshold: number;
  chance: number;
}
export interface Curve {
  name: string;
  interpolation: string;
  keys: [number, number | number[]][];
}
export interface Clip {
  id: string;
  name: string;
  duration: number;
  sample_rate: number;
  looping: boolean;
  skeleton: string | null;
  notifies: Notify[];
  windows: Window[];
  curves: Curve[];
  tracks: string[];
}
export interface ClipDoc {
  path: string;
  version: string;
  source: string;
  clip: Clip | null;
  diagnostics: { severity: string; code: string; message: string; line: number }[];
  model: string | null;
}
export interface ClipEntry {
  path: string;
  id: string | null;
  name: string | null;
  duration: number | null;
  notifies: number;
  windows: number;
  skeleton: string | null;
  model: string | null;
  errors?: number;
}
export type Edit =
  | { op: 'add_notify'; notify: Partial<Notify> }
  | { op: 'set_notify'; id: string; notify: Partial<Notify> }
  | { op: 'remove_notify'; id: string }
  | { op: 'add_window'; window: Partial<Window> }
  | { op: 'set_window'; id: string; window: Partial<Window> }
  | { op: 'remove_window'; id: string };

export interface Transform {
  translation: number[];
  rotation: number[];
  scale: number[];
}
export interface BonePose {
  name: string;
  parent: string | null;
  local: Transform;
  world: Transform;
}
export interface Frame {
  t: number;
  bones: BonePose[];
  root_motion: { translation: number[]; yaw: number };
}

export class ClipError extends Error {
  constructor(
    public status: number,
    message: string,
    public body: Record<string, unknown>,
  ) {
    super(message);
  }
}

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'X-Sinew-Token': token };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(text);
  } catch {
    data = { error: text };
  }
  if (!r.ok) throw new ClipError(r.status, String(data.error ?? r.statusText), data);
  return data as T;
}

const q = encodeURIComponent;

export const clipsApi = {
  clips: () => call<{ clips: ClipEntry[] }>('GET', '/api/clips'),
  clip: (path: string) => call<ClipDoc>('GET', `/api/clip?path=${q(path)}`),
  save: (path: string, base: string, edits: Edit[]) =>
    call<{ version: string; source: string; format: number }>('PUT', `/api/clip?path=${q(path)}`, { base, edits }),
  poses: (path: string, from: number, to: number, fps: number) =>
    call<{ frames: Frame[] }>('GET', `/api/poses?path=${q(path)}&from=${from}&to=${to}&fps=${fps}`),
  machines: () => call<{ machines: string[] }>('GET', '/api/machines'),
  machineSvg: async (path: string) => {
    const r = await fetch(`/api/machine.svg?path=${q(path)}`);
    const text = await r.text();
    if (!r.ok) throw new ClipError(r.status, JSON.parse(text).error ?? r.statusText, {});
    return text;
  },
};
