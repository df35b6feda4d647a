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
import { launch as launchChrome } from 'chrome-launcher';
import lighthouse, { desktopConfig, type Config } from 'lighthouse';
import { CHROMIUM_PATH, launchBrowser, VIEWPORTS } from '../web/e2e/browser';
import { BUDGET_KB, DIST, measureBundle } from '../web/e2e/bundleSize';

export const COMMAND = 'node --import tsx bench/web.ts';
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 9);
const TARGET_TTI_MS = 1_500;
const LIGHTHOUSE_RUNS = Number(process.env.BENCH_WEB_LIGHTHOUSE_RUNS ?? 3);
const LIGHTHOUSE_PAGES = ['/', '/content/participants', '/content/about'];
const LIGHTHOUSE_PRESETS: { name: 'mobile' | 'desktop'; config: Config | undefined; performance: number }[] = [
  { name: 'mobile', config: undefined, performance: 97 },
  { name: 'desktop', config: desktopConfig, performance: 99 },
];
const TARGET_FCP_MS = 1_000;
const TARGET_LCP_MS = 1_500;
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
const met = (ok: boolean) => (ok ? 'met' : '**missed**');

interface LighthouseFigures {
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  /** Lighthouse's reading of this host's CPU speed (its `benchmarkIndex`): the same page scores lower on a slower host. */
  benchmarkIndex: number;
}

/**
 * Lighthouse 12 (its default simulated throttling: the mobile preset is a mid-range phone on slow
 * 4G, the desktop preset a fast connection) on each public page, in one headless Chromium; each
 * run is a fresh navigation with storage cleared, as Lighthouse does by default.
 */
async function runLighthouse(baseUrl: string) {
  const chrome = await launchChrome({
    chromePath: CHROMIUM_PATH,
    chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const results: { page: string; preset: string; target: number; version: string; runs: LighthouseFigures[] }[] = [];
  try {
    for (const preset of LIGHTHOUSE_PRESETS) {
      for (const path of LIGHTHOUSE_PAGES) {
        const runs: LighthouseFigures[] = [];
        let version = '';
        for (let i = 0; i < LIGHTHOUSE_RUNS; i++) {
          const result = await lighthouse(
            baseUrl + path,
            { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'] },
            preset.config,
          );
          if (!result) throw new Error(`Lighthouse returned nothing for ${path}`);
          const { categories, audits } = result.lhr;
          version = result.lhr.lighthouseVersion;
          const score = (id: string) => Math.round((categories[id]?.score ?? NaN) * 100);
          const value = (id: string) => audits[id]?.numericValue ?? NaN;
          runs.push({
            performance: score('performance'),
            accessibility: score('accessibility'),
            bestPractices: score('best-practices'),
            seo: score('seo'),
            fcpMs: value('first-contentful-paint'),
            lcpMs: value('largest-contentful-paint'),
            tbtMs: value('total-blocking-time'),
            benchmarkIndex: result.lhr.environment.benchmarkIndex,
          });
        }
        results.push({ page: path, preset: preset.name, target: preset.performance, version, runs });
      }
    }
  } finally {
    chrome.kill();
  }
  return results;
}

/**
 * Which pages the server answers with their own build-time HTML (web/scripts/prerender.ts marks
 * #root with the path it was rendered for). A page sent another's markup (index.html, `/`'s) is
 * rendered by the script from an empty root: its figures are not those of a page painted from HTML.
 */
async function servedOwnHtml(baseUrl: string): Promise<Record<string, boolean>> {
  const served: Record<string, boolean> = {};
  for (const path of LIGHTHOUSE_PAGES) {
    const html = await (await fetch(baseUrl + path, { headers: { accept: 'text/html' } })).text();
    served[path] = html.includes(`data-page="${path}"`);
  }
  return served;
}

function hostIndex(results: Awaited<ReturnType<typeof runLighthouse>>): string {
  const index = stats(results.flatMap((r) => r.runs.map((run) => run.benchmarkIndex)).filter(Number.isFinite)).median;
  return Math.round(index).toLocaleString('en-US');
}

function lighthouseTable(results: Awaited<ReturnType<typeof runLighthouse>>, served: Record<string, boolean>): string[] {
  // A run Lighthouse could not score (NaN: a timeout on a loaded machine) is left out of the median.
  const median = (runs: LighthouseFigures[], key: keyof LighthouseFigures) => stats(runs.map((r) => r[key]).filter(Number.isFinite)).median;
  const rows = results.map(({ page, preset, target, runs }) => {
    const perf = median(runs, 'performance');
    const fcp = median(runs, 'fcpMs');
    const lcp = median(runs, 'lcpMs');
    const a11y = median(runs, 'accessibility');
    const bp = median(runs, 'bestPractices');
    const seo = median(runs, 'seo');
    const timing = preset === 'mobile';
    return `| \`${page}\` | ${preset} | ${perf} (≥ ${target}: ${met(perf >= target)}) | ${ms(fcp)}${timing ? ` (≤ ${ms(TARGET_FCP_MS)}: ${met(fcp <= TARGET_FCP_MS)})` : ''} | ${ms(lcp)}${timing ? ` (≤ ${ms(TARGET_LCP_MS)}: ${met(lcp <= TARGET_LCP_MS)})` : ''} | ${ms(median(runs, 'tbtMs'))} | ${a11y} (${met(a11y === 100)}) | ${bp} (${met(bp === 100)}) | ${seo} (${met(seo === 100)}) |`;
  });
  return [
    `Lighthouse ${results[0]?.version ?? ''}, median of ${LIGHTHOUSE_RUNS} runs per page and preset (default simulated throttling; mobile = the default config, desktop = its desktop config). Targets: mobile performance ≥ 97, FCP ≤ 1.0 s, LCP ≤ 1.5 s; desktop performance ≥ 99; accessibility, best practices and SEO 100 on both.`,
    '',
    '| Page | Preset | Performance | FCP | LCP | TBT | Accessibility | Best practices | SEO |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Host CPU speed by Lighthouse's own measure (\`benchmarkIndex\`, median of all ${results.reduce((n, r) => n + r.runs.length, 0)} runs): ${hostIndex(results)}. The throttling is simulated on top of the host's speed (a 4× slower CPU on mobile), so the same build scores lower on a slower host: compare scores across days only with this figure beside them.`,
    '',
    `Build-time HTML sent by the server for the page's own path: ${LIGHTHOUSE_PAGES.map((p) => `\`${p}\` ${served[p] ? 'yes' : '**no** (it sends index.html, the markup of `/`, which the client discards)'}`).join('; ')}.`,
  ];
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const build = spawnSync('npm', ['run', 'build', '-w', '@pass/web'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`web build failed:\n${build.stdout}\n${build.stderr}`);
  const bundle = measureBundle();

  const dataDir = mkdtempSync(join(tmpdir(), 'pass-bench-web-'));
  const server = await spawnStandalone({ DATA_DIR: dataDir, WEB_DIST_DIR: DIST });
  const baseUrl = server.url.replace(/\/$/, '');
  const browser = await launchBrowser();
  const samples: Sample[] = [];
  let lighthouseResults: Awaited<ReturnType<typeof runLighthouse>>;
  let served: Record<string, boolean>;
  try {
    served = await servedOwnHtml(baseUrl);
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
    await browser.close();
    lighthouseResults = await runLighthouse(baseUrl);
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
    `| JavaScript named by index.html (entry + start-up chunks) | ${kb(bundle.jsGzipBytes)} | < ${BUDGET_KB} KB: ${verdict(jsKb < BUDGET_KB)} |`,
    `| JavaScript the browser fetched for \`/\` (${fetched.length} scripts) | ${kb(fetchedGzip)} | |`,
    `| CSS | ${kb(bundle.cssGzipBytes)} | |`,
    '',
    ...bundle.assets.map((a) => `- \`${a.path}\`: ${kb(a.gzipBytes)}`),
    '',
    ...lighthouseTable(lighthouseResults, served),
  ].join('\n');
  return { title: 'Web client: bundle size, time to interactive of / and Lighthouse', markdown };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  process.stdout.write(`## ${title}\n\n${markdown}\n`);
}
