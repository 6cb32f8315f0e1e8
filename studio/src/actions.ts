// The page's conversations with the server, as named actions on the store: load the
// vocabulary and the graph list, open, check, save, follow the project live (Server-Sent
// Events). A `503` answer with `Retry-After` (the studio's heavy requests are busy) is retried
// once after the delay it names, while the page says "busy, retrying" (`api.ts`).
import { ApiError, api, parseJson, type Diagnostic, type Model } from './api';
import { useStudio } from './store';
import type { PaletteChange } from './Palette';

const st = () => useStudio.getState();

export async function loadVocabulary() {
  const [p, k, c] = await Promise.all([api.palette(), api.kinds(), api.catalog()]);
  st().vocabularyLoaded(p.nodes, k.kinds, c);
}

export async function refreshGraphs() {
  const g = await api.graphs();
  st().graphsListed(g.graphs);
}

function setUrl(path: string) {
  const u = new URL(location.href);
  u.searchParams.set('graph', path);
  history.replaceState(null, '', u);
}

export async function openGraph(path: string) {
  const doc = await api.graph(path);
  if (!doc.model) throw new Error(`${path} does not parse; fix it in a text editor first`);
  st().opened({ path, version: doc.version }, doc.model, doc.diagnostics, doc.pins);
  setUrl(path);
}

/** A new, empty graph at `path` (relative to `--graphs`; missing folders are created by the
 * first save). Nothing is written until it is saved. */
export function newGraph(path: string) {
  const p = path.endsWith('.bpg') ? path : `${path}.bpg`;
  const name = (p.split('/').pop() ?? 'untitled').replace(/\.bpg$/, '').replace(/[^A-Za-z0-9_]/g, '_').replace(/^(?=[0-9])/, '_');
  st().created(p, { graph: name || 'untitled', vars: [], nodes: [], links: [] });
  setUrl(p);
}

let checkSeq = 0;

/** Checks the current model through `/api/check` and applies the answer if it is still the
 * newest question. */
export async function check() {
  const { model, doc } = st();
  if (!model || !doc) return;
  const seq = ++checkSeq;
  try {
    const r = await api.check(doc.path, model);
    if (seq === checkSeq) st().checked(model, r.diagnostics, r.pins);
  } catch (e) {
    if (seq === checkSeq) st().say(`check failed: ${(e as Error).message}`, 'error');
  }
}

/** Saves the model (to `asPath` for "Save as": a new file, refused if it exists). */
export async function save(base?: string | null, asPath?: string) {
  const { model, doc } = st();
  if (!model || !doc) return;
  const path = asPath ?? doc.path;
  const b = asPath ? null : base === undefined ? doc.version : base;
  try {
    const r = await api.save(path, b, model);
    st().saved(path, r.version, model, r.diagnostics);
    if (asPath) setUrl(path);
    st().say(`Saved ${path}`, 'ok');
    refreshGraphs().catch(() => {});
  } catch (e) {
    if (e instanceof ApiError && e.status === 409 && !asPath) {
      st().conflicted({ message: e.message, version: (e.body.version as string | null) ?? null });
    } else {
      st().say(`Save failed: ${(e as Error).message}`, 'error');
    }
  }
}

/** Loads the file's current text from disk, discarding the page's edits. */
export async function reloadFromDisk() {
  const doc = st().doc;
  if (doc) await openGraph(doc.path);
}

/** One EventSource for the page's life: palette, check and file events. */
export function followProject(): () => void {
  const es = new EventSource('/api/events');
  es.addEventListener('palette', async (ev) => {
    const d = parseJson((ev as MessageEvent).data) as PaletteChange;
    await loadVocabulary();
    st().paletteChanged({ added: d.added ?? [], removed: d.removed ?? [], changed: d.changed ?? [], at: Date.now() });
    check().catch(() => {});
  });
  es.addEventListener('check', (ev) => {
    const d = parseJson((ev as MessageEvent).data) as { path: string; diagnostics: Diagnostic[] };
    refreshGraphs().catch(() => {});
    const s = st();
    if (d.path !== s.doc?.path) return;
    if (s.dirty) check().catch(() => {});
    else s.diagnosticsArrived(d.diagnostics);
  });
  es.addEventListener('file', (ev) => {
    const d = parseJson((ev as MessageEvent).data) as { path: string; version: string | null };
    refreshGraphs().catch(() => {});
    fileChanged(d.path, d.version).catch(() => {});
  });
  es.onopen = () => document.documentElement.setAttribute('data-events', 'open');
  return () => es.close();
}

/** The open file changed on disk: reload it when the page has no edits and it parses; when
 * it no longer parses, keep the page's graph and say so (a banner offers both). */
async function fileChanged(path: string, version: string | null) {
  const s = st();
  const doc = s.doc;
  if (!doc || path !== doc.path || version === doc.version || !version) return;
  const disk = await api.graph(path).catch(() => null);
  // The page's own save may have answered meanwhile: its version is then the disk's.
  if (!disk || disk.version === st().doc?.version || path !== st().doc?.path) return;
  if (!disk.model) {
    st().diskNoLongerParses(disk.diagnostics);
    return;
  }
  st().diskNoLongerParses(null);
  if (st().dirty) st().diskChangedWhileEditing(true);
  else {
    st().opened({ path, version: disk.version }, disk.model, disk.diagnostics, disk.pins);
    st().say(`${path} changed on disk: reloaded`, 'info');
  }
}

export function commit(next: Model | null) {
  return st().commit(next);
}
