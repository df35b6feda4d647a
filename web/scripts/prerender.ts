/**
 * Last step of `npm run build`: writes the public shells' HTML into web/dist. Reads the client
 * build's dist/index.html (its scripts, preloads, inline CSS) as the template and the SSR build of
 * src/app/prerender.tsx (node_modules/.prerender, made by the step before), and writes one file per
 * page with that page's markup inside #root, which the client then hydrates.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const WEB = resolve(import.meta.dirname, '..');
const DIST = resolve(WEB, 'dist');
const SSR_DIR = resolve(WEB, 'node_modules/.prerender');
const EMPTY_ROOT = '<div id="root"></div>';

interface PrerenderModule {
  PRERENDERED_PAGES: readonly { path: string; file: string; title: string }[];
  PRERENDERED_PATH_ATTRIBUTE: string;
  renderPage(path: string): Promise<{ head: string; body: string }>;
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

const entry = pathToFileURL(resolve(SSR_DIR, 'prerender.js')).href;
const { PRERENDERED_PAGES, PRERENDERED_PATH_ATTRIBUTE, renderPage } = (await import(entry)) as PrerenderModule;
const template = readFileSync(resolve(DIST, 'index.html'), 'utf8');
if (!template.includes(EMPTY_ROOT)) throw new Error(`dist/index.html has no ${EMPTY_ROOT} to fill`);

for (const page of PRERENDERED_PAGES) {
  const { head, body } = await renderPage(page.path);
  const html = template
    .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeText(page.title)}</title>${head}`)
    .replace(EMPTY_ROOT, () => `<div id="root" ${PRERENDERED_PATH_ATTRIBUTE}="${page.path}">${body}</div>`);
  const file = resolve(DIST, page.file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, html);
  process.stdout.write(`prerendered ${page.path} -> dist/${page.file} (${(body.length / 1024).toFixed(1)} KB of markup)\n`);
}
rmSync(SSR_DIR, { recursive: true, force: true });
