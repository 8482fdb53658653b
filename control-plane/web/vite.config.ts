import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Read by the bundle budget test: which files the first load of each page needs.
    manifest: true,
  },
  // `npx vite control-plane/web` serves the sources against a control plane on :8080.
  server: { proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } } },
});
