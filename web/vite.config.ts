import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { defineConfig, type IndexHtmlTransformContext, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { BOOT_CHUNK_META } from './src/app/boot/chunks.ts';

// The standalone server serves web/dist with /api, /uploads and Socket.IO on the same origin;
// in development the dev server forwards those to it.
const backend = 'http://localhost:3000';

// react-router's package entry is its development build (dev warnings, the "Hey developer" hint on
// the error screen); production bundles use the production build next to it.
const require = createRequire(import.meta.url);
const routerDev = dirname(require.resolve('react-router'));
const routerProd = resolve(routerDev, '../production');

type Bundle = NonNullable<IndexHtmlTransformContext['bundle']>;

/** A build-only plugin that rewrites index.html once Vite has written its own tags into it. */
function rewriteBuiltHtml(name: string, rewrite: (html: string, bundle: Bundle) => string): Plugin {
  return {
    name,
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (html, { bundle }) => (bundle ? rewrite(html, bundle) : html),
    },
  };
}

/**
 * The stylesheet (a few KB) goes into index.html as a <style>, so the first paint waits for no
 * second request. The file is still emitted (nothing else names it today, but a stale HTML could).
 * The CSP allows inline styles ('unsafe-inline' in style-src).
 */
const inlineStylesheet = () =>
  rewriteBuiltHtml('pass:inline-stylesheet', (html, bundle) =>
    html.replace(/<link rel="stylesheet"[^>]*href="\/([^"]+\.css)"[^>]*>/g, (tag, fileName: string) => {
      const asset = bundle[fileName];
      if (asset?.type !== 'asset') return tag;
      const css = typeof asset.source === 'string' ? asset.source : new TextDecoder().decode(asset.source);
      return `<style>${css.replaceAll('</style', '<\\/style')}</style>`;
    }),
  );

/**
 * What `/` runs at start, as a few chunks that main.tsx runs one per task (the libraries, then
 * the app: app/start.tsx and everything it imports statically). Lazy routes (and what only they
 * use) still split off. Earlier groups win a module; a group takes its modules' dependencies too
 * unless an earlier group has them. Left to itself, Rolldown carves the modules `/` shares with
 * lazy routes into several small common chunks that `/` then loads one by one, depending on how
 * the imports happen to chain.
 */
const BOOT_CHUNKS = [
  // The entry: main.tsx and what it imports itself (with Vite's helpers), which every other chunk
  // may import from it without running anything more.
  { name: 'main', test: /\/src\/main\.tsx$|^\0vite\/(modulepreload-polyfill|preload-helper)/ },
  { name: 'react', test: /\/node_modules\/(react|react-dom|scheduler)\/|\/src\/app\/boot\/react\.ts$/ },
  { name: 'router', test: /\/node_modules\/(react-router|react-router-dom|cookie|set-cookie-parser)\/|\/src\/app\/boot\/router\.ts$/ },
  { name: 'state', test: /\/node_modules\/(@reduxjs\/toolkit|immer|redux|reselect|redux-thunk|redux-saga|@redux-saga\/[^/]+|react-redux|use-sync-external-store)\/|\/src\/app\/boot\/state\.ts$/ },
  { name: 'toast', test: /\/node_modules\/(react-hot-toast|goober)\/|\/src\/app\/boot\/toast\.ts$/ },
  { name: 'app', test: /\/src\/app\/start\.tsx$/ },
];

/**
 * index.html names every start-up chunk and the runtime they share (`<meta name="boot-chunk">`),
 * without fetching them: main.tsx preloads them together once the page has painted from its HTML
 * (`preloadBootChunks` there), so they download at once rather than one after another as it asks
 * for them, yet never ahead of the first paint and the largest image (docs/benchmarks/history/web.md,
 * "The start-up chunks after the first paint"). Vite itself preloads only what the entry imports
 * statically: nothing, by design of main.tsx.
 */
function nameBootChunks(): Plugin {
  // Rolldown's runtime helpers come as a chunk of their own that the others import.
  const names = new Set([...BOOT_CHUNKS.map((c) => c.name), 'rolldown-runtime']);
  return rewriteBuiltHtml('pass:name-boot-chunks', (html, bundle) => {
    const tags = Object.values(bundle)
      .filter((chunk) => chunk.type === 'chunk' && names.has(chunk.name) && !html.includes(`/${chunk.fileName}"`))
      .map((chunk) => `<meta name="${BOOT_CHUNK_META}" content="/${chunk.fileName}">`);
    return html.replace('</head>', `  ${tags.join('\n    ')}\n  </head>`);
  });
}

/**
 * The module script Vite names in index.html is fetched at low priority: it is deferred (the page
 * paints from its HTML before it runs), so the first paint's stylesheet and the largest image go
 * first on a slow link. At Chromium's default priority for a module script ("High"), Lighthouse's
 * simulation also counts it as render-blocking and puts its download before the first paint
 * (docs/benchmarks/history/web.md, "Start-up off the critical path").
 */
const lowPriorityScripts = () =>
  rewriteBuiltHtml('pass:low-priority-scripts', (html) =>
    html.replace(/<script type="module" crossorigin src=/g, '<script type="module" crossorigin fetchpriority="low" src='),
  );

export default defineConfig(({ mode }) => ({
  plugins: [react(), inlineStylesheet(), lowPriorityScripts(), nameBootChunks()],
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
        codeSplitting: { groups: BOOT_CHUNKS.map(({ name, test }, i) => ({ name, test, priority: BOOT_CHUNKS.length - i })) },
      },
    },
  },
}));
