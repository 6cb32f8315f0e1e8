// The graph list: every `.bpg` under `--graphs` as a tree by folder, with a search box
// (every word must appear in the path). Test hooks: data-testid="graph-picker",
// data-graph-path on each file.
import { useMemo, useState } from 'react';
import { useStudio, type GraphInfo } from './store';

interface Folder {
  name: string;
  folders: Map<string, Folder>;
  files: GraphInfo[];
}

function tree(graphs: GraphInfo[]): Folder {
  const root: Folder = { name: '', folders: new Map(), files: [] };
  for (const g of graphs) {
    const parts = g.path.split('/');
    let f = root;
    for (const p of parts.slice(0, -1)) {
      let c = f.folders.get(p);
      if (!c) f.folders.set(p, (c = { name: p, folders: new Map(), files: [] }));
      f = c;
    }
    f.files.push(g);
  }
  return root;
}

function FolderView(props: { f: Folder; depth: number; open: string | undefined; onOpen: (p: string) => void }) {
  const { f } = props;
  return (
    <>
      {[...f.folders.values()].map((c) => (
        <details key={c.name} open data-graph-folder={c.name} style={{ paddingLeft: props.depth * 10 }}>
          <summary>{c.name}/</summary>
          <FolderView f={c} depth={props.depth + 1} open={props.open} onOpen={props.onOpen} />
        </details>
      ))}
      {f.files.map((g) => (
        <div
          key={g.path}
          className={`gp-file${g.path === props.open ? ' on' : ''}`}
          style={{ paddingLeft: props.depth * 10 + 6 }}
          data-graph-path={g.path}
          onClick={() => props.onOpen(g.path)}
          title={g.path}
        >
          {g.path.split('/').pop()}
          {g.errors ? <span className="gp-errors"> {g.errors} errors</span> : null}
        </div>
      ))}
    </>
  );
}

export function GraphPicker(props: { onOpen: (path: string) => void }) {
  const graphs = useStudio((s) => s.graphs);
  const path = useStudio((s) => s.doc?.path);
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  const shown = useMemo(() => {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    return tree(graphs.filter((g) => words.every((w) => g.path.toLowerCase().includes(w))));
  }, [graphs, q]);
  return (
    <div className="graph-picker" data-testid="graph-picker">
      <button onClick={() => setOpen(!open)} data-testid="graph-picker-button">
        {path ?? 'Open graph…'} ▾
      </button>
      {open && (
        <div className="gp-pop">
          <input autoFocus placeholder="Search graphs…" value={q} onChange={(e) => setQ(e.target.value)} data-testid="graph-search" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)} />
          <div className="gp-tree">
            <FolderView
              f={shown}
              depth={0}
              open={path}
              onOpen={(p) => {
                setOpen(false);
                props.onOpen(p);
              }}
            />
          </div>
        </div>
      )}
    </div>
  );
}
