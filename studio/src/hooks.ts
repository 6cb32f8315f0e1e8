// The page's long-lived subscriptions: the live project over Server-Sent Events (palette,
// check and file events) and the keyboard shortcuts (Ctrl+S, Ctrl+Z, Ctrl+Shift+Z / Ctrl+Y).
import { useEffect, useRef, type MutableRefObject } from 'react';
import { parseJson, type Diagnostic, type Model } from './api';
import type { PaletteChange } from './Palette';

export interface PageState {
  model: Model | null;
  loaded: { path: string; version: string | null } | null;
  dirty: boolean;
}

export interface LiveActions {
  loadVocabulary: () => Promise<void>;
  recheck: () => Promise<void>;
  refreshGraphs: () => Promise<void> | void;
  openGraph: (path: string) => Promise<void>;
  say: (text: string, kind?: string) => void;
}

export interface LiveSetters {
  setPaletteChange: (c: PaletteChange) => void;
  setDiags: (d: Diagnostic[]) => void;
  setDiskChanged: (b: boolean) => void;
}

/** One EventSource for the page's life; handlers read the current state through refs. */
export function useLiveProject(state: MutableRefObject<PageState>, actions: LiveActions, set: LiveSetters) {
  const live = useRef({ ...actions, ...set });
  live.current = { ...actions, ...set };
  useEffect(() => {
    const es = new EventSource('/api/events');
    es.addEventListener('palette', async (ev) => {
      const d = parseJson((ev as MessageEvent).data) as PaletteChange;
      await live.current.loadVocabulary();
      live.current.setPaletteChange({ added: d.added ?? [], removed: d.removed ?? [], changed: d.changed ?? [], at: Date.now() });
      live.current.recheck().catch(() => {});
    });
    es.addEventListener('check', (ev) => {
      const d = parseJson((ev as MessageEvent).data) as { path: string; diagnostics: Diagnostic[] };
      live.current.refreshGraphs();
      if (d.path === state.current.loaded?.path) {
        if (state.current.dirty) live.current.recheck().catch(() => {});
        else live.current.setDiags(d.diagnostics);
      }
    });
    es.addEventListener('file', (ev) => {
      const d = parseJson((ev as MessageEvent).data) as { path: string; version: string | null };
      const l = state.current.loaded;
      live.current.refreshGraphs();
      if (!l || d.path !== l.path || d.version === l.version) return;
      if (state.current.dirty) live.current.setDiskChanged(true);
      else if (d.version)
        live.current.openGraph(l.path).then(() => live.current.say(`${l.path} changed on disk: reloaded`, 'info'));
    });
    es.onopen = () => document.documentElement.setAttribute('data-events', 'open');
    return () => es.close();
  }, [state]);
}

/** Ctrl+S saves (also from a field, after committing it); undo and redo outside fields. */
export function useShortcuts(a: { save: () => void; undo: () => void; redo: () => void }) {
  const cur = useRef(a);
  cur.current = a;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey)) return;
      const inField = (e.target as HTMLElement)?.closest?.('input, textarea, select');
      const k = e.key.toLowerCase();
      if (k === 's') {
        e.preventDefault();
        (document.activeElement as HTMLElement | null)?.blur?.();
        setTimeout(() => cur.current.save(), 0);
      } else if (!inField && k === 'z' && !e.shiftKey) {
        e.preventDefault();
        cur.current.undo();
      } else if (!inField && (k === 'y' || (k === 'z' && e.shiftKey))) {
        e.preventDefault();
        cur.current.redo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
