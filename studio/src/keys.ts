// The editor's keyboard and clipboard, outside text fields: Ctrl+A selects every node (never
// the page's text), Ctrl+C / Ctrl+X / Ctrl+V through the system clipboard's copy, cut and
// paste events, Ctrl+D duplicates, Delete/Backspace deletes the selection (one undo step),
// C boxes the selection, Space opens the search at the cursor, Escape closes it.
import { useEffect } from 'react';
import { useStudio } from './store';
import { boxAroundSelection, deleteSelection } from './commands';
import { duplicate, pasteText, selectionText } from './clipboard';
import type { Pos } from './edits';

/** The pointer over the canvas (screen), and the canvas's screen → flow transform. */
export const cursor = {
  screen: null as Pos | null,
  toFlow: (p: Pos): Pos => p,
  flow(): Pos {
    if (this.screen) return this.toFlow(this.screen);
    const r = document.querySelector('.react-flow')?.getBoundingClientRect();
    return this.toFlow(r ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : { x: 0, y: 0 });
  },
};

function inField(t: EventTarget | null): boolean {
  return !!(t as HTMLElement | null)?.closest?.('input, textarea, select, [contenteditable="true"]');
}

export function useEditorKeys() {
  useEffect(() => {
    const onCopy = (e: ClipboardEvent) => {
      if (inField(document.activeElement) || inField(e.target)) return;
      const text = selectionText();
      if (!text || !e.clipboardData) return;
      e.clipboardData.setData('text/plain', text);
      e.preventDefault();
      if (e.type === 'cut') deleteSelection();
    };
    const onPaste = (e: ClipboardEvent) => {
      if (inField(document.activeElement) || inField(e.target) || !e.clipboardData) return;
      const text = e.clipboardData.getData('text/plain');
      e.preventDefault();
      if (text) pasteText(text, cursor.flow());
    };
    const onKey = (e: KeyboardEvent) => {
      if (inField(e.target)) return;
      const s = useStudio.getState();
      if (!s.model) return;
      const mod = e.ctrlKey || e.metaKey;
      const k = e.key.toLowerCase();
      if (mod && k === 'a') {
        e.preventDefault();
        s.selectAll();
      } else if (mod && k === 'd') {
        e.preventDefault();
        duplicate();
      } else if (!mod && (e.key === 'Delete' || e.key === 'Backspace')) {
        e.preventDefault();
        deleteSelection();
      } else if (!mod && !e.altKey && k === 'c') {
        boxAroundSelection();
      } else if (!mod && e.key === ' ' && cursor.screen) {
        e.preventDefault();
        s.openSearch({ x: cursor.screen.x, y: cursor.screen.y, flow: cursor.flow(), query: '' });
      } else if (e.key === 'Escape') {
        if (s.search) s.openSearch(null);
        else s.select({});
      }
    };
    document.addEventListener('copy', onCopy);
    document.addEventListener('cut', onCopy);
    document.addEventListener('paste', onPaste);
    window.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('copy', onCopy);
      document.removeEventListener('cut', onCopy);
      document.removeEventListener('paste', onPaste);
      window.removeEventListener('keydown', onKey);
    };
  }, []);
}
