import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Fixed file names (no content hashes): the Rust binary embeds exactly
// dist/index.html, dist/assets/index.js and dist/assets/index.css (src/studio/page.rs),
// and CI rebuilds the bundle and fails when it differs from the committed one.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: { polyfill: false },
    cssCodeSplit: false,
    assetsInlineLimit: 1 << 20,
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      output: {
        entryFileNames: 'assets/index.js',
        chunkFileNames: 'assets/[name].js',
        assetFileNames: 'assets/index[extname]',
        codeSplitting: false,
      },
    },
  },
});
