// The page's keyboard shortcuts: Ctrl+S saves (also from a field, after committing it); undo
// and redo outside fields.
import { useEffect, useRef } from 'react';

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
