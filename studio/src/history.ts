// Undo/redo: every edit is a new model; the page keeps the models before and after it.
import { useCallback, useMemo, useState } from 'react';
import type { Model } from './api';

const LIMIT = 500;

interface H {
  past: Model[];
  present: Model | null;
  future: Model[];
}

export function useHistory() {
  const [h, setH] = useState<H>({ past: [], present: null, future: [] });
  const reset = useCallback((m: Model) => setH({ past: [], present: m, future: [] }), []);
  const push = useCallback(
    (m: Model) =>
      setH((s) => ({
        past: s.present ? [...s.past, s.present].slice(-LIMIT) : s.past,
        present: m,
        future: [],
      })),
    [],
  );
  const undo = useCallback((): boolean => {
    if (h.past.length === 0) return false;
    setH((s) =>
      s.past.length === 0
        ? s
        : { past: s.past.slice(0, -1), present: s.past[s.past.length - 1], future: s.present ? [s.present, ...s.future] : s.future },
    );
    return true;
  }, [h.past.length]);
  const redo = useCallback((): boolean => {
    if (h.future.length === 0) return false;
    setH((s) =>
      s.future.length === 0
        ? s
        : { past: s.present ? [...s.past, s.present] : s.past, present: s.future[0], future: s.future.slice(1) },
    );
    return true;
  }, [h.future.length]);
  return useMemo(
    () => ({ model: h.present, reset, push, undo, redo, canUndo: h.past.length > 0, canRedo: h.future.length > 0 }),
    [h, reset, push, undo, redo],
  );
}
