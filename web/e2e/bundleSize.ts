/**
 * Gzip size of what `/` loads before any lazy route: the entry script, the start-up chunks it
 * fetches (named by index.html) and CSS.
 * Usage: npm run build -w @pass/web && npm run bundle-size -w @pass/web
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

export const DIST = resolve(import.meta.dirname, '../dist');
export const BUDGET_KB = 200;

export interface BundleSize {
  assets: { path: string; gzipBytes: number }[];
  jsGzipBytes: number;
  cssGzipBytes: number;
}

/**
 * Reads dist/index.html and gzips (default level) every script and stylesheet it names (a start-up
 * chunk by a `<meta name="boot-chunk">`), and the stylesheet it carries inline (listed as
 * `index.html <style> (inline)`).
 */
export function measureBundle(dist = DIST): BundleSize {
  const html = readFileSync(resolve(dist, 'index.html'), 'utf8');
  const paths = [...html.matchAll(/(?:src|href|content)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] ?? '');
  const assets = paths.map((path) => ({ path, gzipBytes: gzipSync(readFileSync(resolve(dist, `.${path}`))).length }));
  const inline = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '').join('');
  const inlineGzipBytes = inline ? gzipSync(inline).length : 0;
  const sum = (ext: string) => assets.filter((a) => a.path.endsWith(ext)).reduce((n, a) => n + a.gzipBytes, 0);
  if (inline) assets.push({ path: 'index.html <style> (inline)', gzipBytes: inlineGzipBytes });
  return { assets, jsGzipBytes: sum('.js'), cssGzipBytes: sum('.css') + inlineGzipBytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const size = measureBundle();
  for (const a of size.assets) process.stdout.write(`${(a.gzipBytes / 1024).toFixed(1).padStart(7)} KB  ${a.path}\n`);
  const jsKb = size.jsGzipBytes / 1024;
  process.stdout.write(`JavaScript for / (gzip): ${jsKb.toFixed(1)} KB; CSS: ${(size.cssGzipBytes / 1024).toFixed(1)} KB\n`);
  if (jsKb > BUDGET_KB) {
    process.stdout.write(`over the ${BUDGET_KB} KB budget\n`);
    process.exitCode = 1;
  }
}
