import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// The standalone server serves web/dist with /api, /uploads and Socket.IO on the same origin;
// in development the dev server forwards those to it.
const backend = 'http://localhost:3000';

// react-router's package entry is its development build (dev warnings, the "Hey developer" hint on
// the error screen); production bundles use the production build next to it.
const require = createRequire(import.meta.url);
const routerDev = dirname(require.resolve('react-router'));
const routerProd = resolve(routerDev, '../production');

/**
 * The stylesheet (a few KB) goes into index.html as a <style>, so the first paint waits for no
 * second request. The file is still emitted (nothing else names it today, but a stale HTML could).
 * The CSP allows inline styles ('unsafe-inline' in style-src).
 */
function inlineStylesheet(): Plugin {
  return {
    name: 'pass:inline-stylesheet',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle) return html;
        return html.replace(/<link rel="stylesheet"[^>]*href="\/([^"]+\.css)"[^>]*>/g, (tag, fileName: string) => {
          const asset = bundle[fileName];
          if (asset?.type !== 'asset') return tag;
          const css = typeof asset.source === 'string' ? asset.source : new TextDecoder().decode(asset.source);
          return `<style>${css.replaceAll('</style', '<\\/style')}</style>`;
        });
      },
    },
  };
}

export default defineConfig(({ mode }) => ({
  plugins: [react(), inlineStylesheet()],
  resolve: {
    alias:
      mode === 'production'
        ? [
            { find: /^react-router$/, replacement: resolve(routerProd, 'index.mjs') },
            { find: /^react-router\/dom$/, replacement: resolve(routerProd, 'dom-export.mjs') },
          ]
        : [],
  },
  // The build-time render (src/app/prerender.tsx, `vite build --ssr`) bundles everything it uses,
  // so it runs the same aliased, production modules as the browser bundle.
  ssr: { noExternal: true },
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
    rolldownOptions: {
      output: {
        // What `/` runs at start is one chunk: main.tsx and everything it imports statically, with
        // Vite's modulepreload polyfill. Lazy routes (and what only they use) still split off. Left
        // to itself, Rolldown carves the modules `/` shares with lazy routes into several small
        // common chunks that `/` then loads one by one, depending on how the imports happen to chain.
        codeSplitting: { groups: [{ name: 'app', test: /\/src\/main\.tsx$|^\0vite\/modulepreload-polyfill/ }] },
      },
    },
  },
}));
