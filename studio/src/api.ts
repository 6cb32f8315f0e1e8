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
/** A comment box (`box "Title" at (x, y) size (w, h) { color = "#RRGGBB" }`): layout only. */
export interface ModelBox {
  title: string;
  x: number;
  y: number;
  w: number;
  h: number;
  color?: string | null;
  comment?: string;
  line_comment?: string | null;
  [k: string]: unknown;
}
export interface Model {
  graph: string;
  vars: ModelVar[];
  nodes: ModelNode[];
  links: ModelLink[];
  boxes?: ModelBox[];
  [k: string]: unknown;
}

export interface Pin {
  name: string;
  type: string;
  description?: string;
  default?: string;
}
export interface PaletteEntry {
  kind: string;
  name: string;
  category: string;
  description?: string;
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
  /** The text read as a model (when it parses). */
  model?: Model | null;
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
  /** Parallel to `executed` (when the server gives them): each invocation's values. */
  values?: RunValuesDoc[][];
  notice?: string;
}
export interface RunValuesDoc {
  graph: string;
  entity: string | null;
  nodes: Record<string, { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }>;
  vars_before?: Record<string, unknown>;
  vars_after?: Record<string, unknown>;
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

/** Told when a request waits for the server (`503` with `Retry-After`): the text to show,
 * then null when the retry has answered. */
export let onBusy: (text: string | null) => void = () => {};
export function setOnBusy(f: (text: string | null) => void) {
  onBusy = f;
}

/** Longest `Retry-After` the page waits for before its one retry (seconds). */
const MAX_RETRY_AFTER = 10;

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'X-Sinew-Token': token };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const payload = body === undefined ? undefined : toJson(body);
  let r = await fetch(url, { method, headers, body: payload });
  // The studio answers 503 with `Retry-After` when its heavy requests are all in use: say so
  // and retry once after the delay it asks for.
  const after = r.status === 503 ? Number(r.headers.get('Retry-After')) : NaN;
  if (Number.isFinite(after) && after >= 0) {
    await r.text().catch(() => '');
    const secs = Math.min(after, MAX_RETRY_AFTER);
    onBusy(`The studio is busy; retrying in ${secs} s…`);
    try {
      await new Promise((ok) => setTimeout(ok, secs * 1000));
      r = await fetch(url, { method, headers, body: payload });
    } finally {
      onBusy(null);
    }
  }
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
  /** Reads `.bpg` text as a model (pasted text): the server parses, the page never does. Only
   * the model comes back (no check of the pasted text: the check after the paste has it). */
  parse: (source: string) => call<{ model: Model | null }>('POST', '/api/parse', { source }),
  svgUrl: (path: string) => `/api/graph.svg?path=${q(path)}`,
};
