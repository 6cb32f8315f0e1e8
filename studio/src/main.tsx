import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './styles.css';
import { Shell } from './clips/Shell';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ReactFlowProvider>
        <Shell />
      </ReactFlowProvider>
    </StrictMode>,
  );
}
