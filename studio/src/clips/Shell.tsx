// The view switch "Graphs | Clips" above the page: `?clip=P` opens the clips view on a clip
// (or an .animsm), anything else the graph editor. Switching views unmounts the other one.
import { useState } from 'react';
import { App } from '../App';
import { ClipsApp } from './ClipsApp';

export function Shell() {
  const initial = new URLSearchParams(location.search).get('clip');
  const [view, setView] = useState<'graphs' | 'clips'>(initial ? 'clips' : 'graphs');
  return (
    <div className="shell">
      <nav className="views" data-testid="views">
        {(['graphs', 'clips'] as const).map((v) => (
          <button key={v} className={view === v ? 'on' : ''} data-view={v} onClick={() => setView(v)}>
            {v === 'graphs' ? 'Graphs' : 'Clips'}
          </button>
        ))}
      </nav>
      <div className="view">{view === 'graphs' ? <App /> : <ClipsApp initial={initial} />}</div>
    </div>
  );
}
