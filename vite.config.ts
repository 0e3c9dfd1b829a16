import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer: one bundle served by Electron's app:// protocol and by `t1lab serve`.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 2048,
  },
});
