import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The standalone server serves web/dist with /api, /uploads and Socket.IO on the same origin;
// in development the dev server forwards those to it.
const backend = 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': backend,
      '/uploads': backend,
      '/socket.io': { target: backend, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
  },
});
