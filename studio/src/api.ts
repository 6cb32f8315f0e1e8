// The studio's HTTP API (docs/studio.md). Every request carries the per-run token; numbers
// whose JavaScript value would not round-trip (an integer-valued float such as `1.0`, an
// integer beyond 2^53) are kept as their JSON text (RawNum) and written back unchanged, so the
// page never turns `b = 1.0` into `b = 1`.

export class RawNum {
  constructor(public readonly text: string) {}
  get value(): number {
    return Number(this.text);
  }
  toString(): string {
    return this.text;
  }
}

export type Lit = number | string | boolean | RawNum | Array<number | RawNum>;

export interface ModelVar {
  name: string;
  type: string;
  default: Lit;
  comment?: string;
  line_comment?: string | null;
  [k: string]: unknown;
}
export interface ModelNode {
  id: string;
  kind: string;
  x: number | null;
  y: number | null;
  props: Record<string, Lit>;
  comment?: string;
  line_comment?: string | null;
  [k: string]: unknown;
}
export interface ModelLink {
  from: string;
  to: string;
  [k: string]: unknown;
}
export interface Model {
  graph: string;
  vars: ModelVar[];
  nodes: ModelNode[];
  links: ModelLink[];
  [k: string]: unknown;
}

export interface Pin {
  name: string;
  type: string;
}
export interface PaletteEntry {
  kind: string;
  name: string;
  category: string;
  inputs: Pin[];
  outputs: Pin[];
}
export interface KindInfo {
  kind: string;
  family: string;
  subject: string;
  flow: string;
  properties: { name: string; type: string; default: string; range: [number, number] | null }[];
}
export interface Diagnostic {
  severity: 'error' | 'warning' | 'note' | string;
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
  notes: string[];
  node?: string;
  link?: string;
}
export type PinMap = Record<string, { inputs: Pin[]; outputs: Pin[] }>;
export interface GraphDoc {
  path: string;
  version: string;
  source: string;
  model: Model | null;
  diagnostics: Diagnostic[];
  pins: PinMap;
}
export interface CheckDoc {
  diagnostics: Diagnostic[];
  source: string;
  pins: PinMap;
}
export interface Catalog {
  events: { id: string; name: string; sequence_name: string; file: string }[];
  quarantined: { id: string; files: string[] }[];
  diagnostics: Diagnostic[];
}
export interface Executed {
  graph: string;
  entity: string | null;
  event: string | null;
  nodes: string[];
}
export interface RunDoc {
  records: Record<string, unknown>[];
  executed: Executed[][];
}

export const token = new URLSearchParams(location.search).get('token') ?? '';

type SourceReviver = (this: unknown, key: string, value: unknown, ctx?: { source?: string }) => unknown;

export function parseJson(text: string): unknown {
  const reviver: SourceReviver = (_k, v, ctx) => {
    if (typeof v === 'number' && ctx?.source !== undefined) {
      const s = ctx.source;
      if (/[.eE]/.test(s) ? Number.isInteger(v) : !Number.isSafeInteger(v)) return new RawNum(s);
    }
    return v;
  };
  return JSON.parse(text, reviver as (k: string, v: unknown) => unknown);
}

const rawJSON = (JSON as unknown as { rawJSON?: (s: string) => unknown }).rawJSON;

export function toJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) => {
    if (x instanceof RawNum) return rawJSON ? rawJSON(x.text) : Number(x.text);
    return x;
  });
}

export class ApiError extends Error {
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
  const r = await fetch(url, { method, headers, body: body === undefined ? undefined : toJson(body) });
  const text = await r.text();
  let data: Record<string, unknown> = {};
  try {
    data = parseJson(text) as Record<string, unknown>;
  } catch {
    data = { error: text };
  }
  if (!r.ok) throw new ApiError(r.status, String(data.error ?? r.statusText), data);
  return data as T;
}

const q = (p: string) => encodeURIComponent(p);

export const api = {
  palette: () => call<{ nodes: PaletteEntry[] }>('GET', '/api/palette'),
  catalog: () => call<Catalog>('GET', '/api/catalog'),
  kinds: () => call<{ kinds: KindInfo[] }>('GET', '/api/kinds'),
  graphs: () =>
    call<{ graphs: { path: string; graph: string; errors: number; warnings: number }[] }>('GET', '/api/graphs'),
  scenes: () => call<{ scenes: string[] }>('GET', '/api/scenes'),
  graph: (path: string) => call<GraphDoc>('GET', `/api/graph?path=${q(path)}`),
  check: (path: string, model: Model) => call<CheckDoc>('POST', '/api/check', { path, model }),
  save: (path: string, base: string | null, model: Model) =>
    call<{ version: string; diagnostics: Diagnostic[]; source: string; pins: PinMap }>(
      'PUT',
      `/api/graph?path=${q(path)}`,
      { base, model },
    ),
  run: (scene: string, ticks: number) => call<RunDoc>('POST', '/api/run', { scene, ticks }),
  svgUrl: (path: string) => `/api/graph.svg?path=${q(path)}`,
};
