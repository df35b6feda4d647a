/**
 * Gzip size of what `/` loads before any lazy route: the entry script, its modulepreloads and CSS.
 * Usage: npm run build -w @pass/web && npm run bundle-size -w @pass/web
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = resolve(import.meta.dirname, '../dist');
const html = readFileSync(resolve(dist, 'index.html'), 'utf8');
const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] ?? '');

let js = 0;
let css = 0;
for (const asset of assets) {
  const gz = gzipSync(readFileSync(resolve(dist, `.${asset}`))).length;
  if (asset.endsWith('.js')) js += gz;
  else css += gz;
  process.stdout.write(`${(gz / 1024).toFixed(1).padStart(7)} KB  ${asset}\n`);
}
process.stdout.write(`JavaScript for / (gzip): ${(js / 1024).toFixed(1)} KB; CSS: ${(css / 1024).toFixed(1)} KB\n`);
const budgetKb = 200;
if (js / 1024 > budgetKb) {
  process.stdout.write(`over the ${budgetKb} KB budget\n`);
  process.exitCode = 1;
}
