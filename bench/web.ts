/**
 * The web client's weight and speed: the gzip size of the JavaScript `/` loads, and the time to
 * interactive of `/` in headless Debian Chromium against the real standalone server (fresh
 * DATA_DIR, on this machine).
 *
 *   node --import tsx bench/web.ts            (BENCH_WEB_RUNS=15 for more samples)
 *
 * Builds web/dist first. Interactive = from navigation start until the hero's Join button is
 * visible, no longer covered by the loading overlay (hit-testing its centre finds the button)
 * and the page answers the next animation frame; each run is a new browser context (cold cache,
 * as for a first visit). Also recorded: DOMContentLoaded, first contentful paint, and the gzip
 * size of every script the page actually fetched (the lazy routes `/` does not need stay out).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { spawnStandalone } from '@pass/infra/test-support';
import { CHROMIUM_PATH, launchBrowser, VIEWPORTS } from '../web/e2e/browser';
import { BUDGET_KB, DIST, measureBundle } from '../web/e2e/bundleSize';

export const COMMAND = 'node --import tsx bench/web.ts';
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 9);
const TARGET_TTI_MS = 1_500;
const root = resolve(import.meta.dirname, '..');

interface Sample {
  interactiveMs: number;
  domContentLoadedMs: number;
  firstContentfulPaintMs: number;
  scripts: string[];
}

/**
 * Runs in the page before its scripts (a string: this file has no DOM types, and the page must
 * not depend on the transpiler's helpers): notes the first frame where Join can be clicked.
 */
const WATCH_FOR_INTERACTIVE = `(() => {
  const check = () => {
    const join = [...document.querySelectorAll('.hero a')].find((a) => a.textContent.trim() === 'Join');
    if (join) {
      const box = join.getBoundingClientRect();
      const hit = box.width > 0 && box.height > 0 ? document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) : null;
      if (hit && join.contains(hit)) {
        // The next frame proves the main thread is free to handle the click.
        requestAnimationFrame(() => { window.__interactiveAt = performance.now(); });
        return;
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();`;

const READ_TIMINGS = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return { interactive: window.__interactiveAt, dcl: nav ? nav.domContentLoadedEventEnd : NaN, fcp: fcp ? fcp.startTime : NaN };
})()`;

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? NaN, worst: sorted.at(-1) ?? NaN, best: sorted[0] ?? NaN };
};
const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const verdict = (ok: boolean) => (ok ? 'within' : '**over**');

export async function run(): Promise<{ title: string; markdown: string }> {
  const build = spawnSync('npm', ['run', 'build', '-w', '@pass/web'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`web build failed:\n${build.stdout}\n${build.stderr}`);
  const bundle = measureBundle();

  const dataDir = mkdtempSync(join(tmpdir(), 'pass-bench-web-'));
  const server = await spawnStandalone({ DATA_DIR: dataDir, WEB_DIST_DIR: DIST });
  const baseUrl = server.url.replace(/\/$/, '');
  const browser = await launchBrowser();
  const samples: Sample[] = [];
  try {
    // One warm-up visit (the server's first requests read files and compile routes).
    for (let i = 0; i <= RUNS; i++) {
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
      await context.addInitScript({ content: WATCH_FOR_INTERACTIVE });
      const page = await context.newPage();
      const scripts: string[] = [];
      page.on('request', (r) => {
        if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
      });
      await page.goto(baseUrl + '/');
      // A function, not a string: the app's CSP refuses eval.
      await page.waitForFunction(() => (globalThis as { __interactiveAt?: number }).__interactiveAt !== undefined, undefined, {
        timeout: 30_000,
      });
      const timing = await page.evaluate<{ interactive: number; dcl: number; fcp: number }>(READ_TIMINGS);
      if (i > 0) samples.push({ interactiveMs: timing.interactive, domContentLoadedMs: timing.dcl, firstContentfulPaintMs: timing.fcp, scripts });
      await context.close();
    }
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const tti = stats(samples.map((s) => s.interactiveMs));
  const dcl = stats(samples.map((s) => s.domContentLoadedMs));
  const fcp = stats(samples.map((s) => s.firstContentfulPaintMs));
  const fetched = [...new Set(samples.flatMap((s) => s.scripts))];
  const fetchedGzip = fetched.reduce((n, path) => n + gzipSync(readFileSync(resolve(DIST, `.${path}`))).length, 0);
  const jsKb = bundle.jsGzipBytes / 1024;
  const version = spawnSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8' }).stdout.trim() || 'Chromium';

  const markdown = [
    `Command: \`${COMMAND}\` (builds web/dist, starts the standalone server on a fresh DATA_DIR, ${RUNS} cold visits of \`/\` at 1280×800 after one warm-up, ${version} headless). Load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')} at the end.`,
    '',
    '| Figure | Median | Worst | Best | Target |',
    '|---|---|---|---|---|',
    `| Time to interactive of \`/\` (navigation start → Join visible, uncovered, next frame) | ${ms(tti.median)} | ${ms(tti.worst)} | ${ms(tti.best)} | < ${ms(TARGET_TTI_MS)}: ${verdict(tti.worst < TARGET_TTI_MS)} |`,
    `| DOMContentLoaded | ${ms(dcl.median)} | ${ms(dcl.worst)} | ${ms(dcl.best)} | |`,
    `| First contentful paint | ${ms(fcp.median)} | ${ms(fcp.worst)} | ${ms(fcp.best)} | |`,
    '',
    '| Bundle of `/` (gzip, level 6) | Size | Target |',
    '|---|---|---|',
    `| JavaScript named by index.html (entry + modulepreloads) | ${kb(bundle.jsGzipBytes)} | < ${BUDGET_KB} KB: ${verdict(jsKb < BUDGET_KB)} |`,
    `| JavaScript the browser fetched for \`/\` (${fetched.length} scripts) | ${kb(fetchedGzip)} | |`,
    `| CSS | ${kb(bundle.cssGzipBytes)} | |`,
    '',
    ...bundle.assets.map((a) => `- \`${a.path}\`: ${kb(a.gzipBytes)}`),
  ].join('\n');
  return { title: 'Web client: bundle size and time to interactive of /', markdown };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  process.stdout.write(`## ${title}\n\n${markdown}\n`);
}
