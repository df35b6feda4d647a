/**
 * The public shells paint from their HTML: `/`, /content/participants and /content/about
 * are rendered at build time (web/src/app/prerender.tsx, web/scripts/prerender.ts), and the client
 * hydrates them: the node the HTML made is the node React keeps, and no hydration warning or
 * error reaches the console. Any other path discards the markup `/` came with and renders itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { recordSkippedSuite } from '@pass/events/test-support';
import { PAINT_WAIT_LIMIT_MS } from '../src/app/boot/chunks';
import { CHROMIUM_PATH, VIEWPORTS } from './browser';
import { ensureWebBuild, startSite, type Site } from './site';

const SUITE = 'browser: build-time HTML and hydration (web/e2e/hydration.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

/** Each prerendered path, its file in web/dist, and a heading its HTML shows before any script. */
const PAGES = [
  { path: '/', file: 'index.html', heading: 'Get Your Free Pass Today!' },
  { path: '/content/participants', file: 'pages/content/participants.html', heading: 'Participants' },
  { path: '/content/about', file: 'pages/content/about.html', heading: 'About Freedom Pass' },
];

/** What React says when hydration fails or recovers (development texts and production error codes). */
/** Less than PAINT_WAIT_LIMIT_MS, so the start waits for the image rather than the limit. */
const IMAGE_DELAY_MS = 400;
/** One frame at 60 Hz: how much later than the frame's drawing its paint entry may be stamped. */
const PRESENTATION_LAG_MS = 17;
const HYDRATION_TROUBLE = /hydrat|did not match|server rendered|Minified React error #(418|419|421|422|423|425)\b/i;

/** Before any script: notes the first element the parser puts into #root. */
const NOTE_PRERENDERED_NODE = `(() => {
  const observer = new MutationObserver(() => {
    const first = document.getElementById('root')?.firstElementChild;
    if (first) { window.__prerenderedNode = first; observer.disconnect(); }
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;

describe.skipIf(!hasChromium)('build-time HTML of the public shells, hydrated', () => {
  let site: Site;
  let dist: string;

  beforeAll(async () => {
    dist = ensureWebBuild();
    site = await startSite(dist);
  });

  afterAll(async () => {
    await site?.stop();
  });

  /** A page at `path` whose console errors, warnings and uncaught errors are collected. */
  async function open(path: string, options: { imageDelayMs?: number } = {}): Promise<{ page: Page; console: string[] }> {
    const context = await site.newContext({ viewport: VIEWPORTS.mobile });
    await context.addInitScript({ content: NOTE_PRERENDERED_NODE });
    const { imageDelayMs } = options;
    if (imageDelayMs) {
      await context.route('**/certificates/certificate-1.svg', async (route) => {
        await new Promise((done) => setTimeout(done, imageDelayMs));
        await route.continue();
      });
    }
    const page = await site.newPage(context);
    const messages: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') messages.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`));
    await page.goto(site.url + path);
    // The ad slot's frame is rendered by the first render after hydration (components/AdBanner.tsx).
    await page.locator('footer [data-ad-slot] iframe').waitFor({ state: 'attached' });
    return { page, console: messages };
  }

  test('the server sends / with its content in the HTML, before any script runs', async () => {
    const html = await (await fetch(site.url + '/', { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('data-page="/"');
    expect(html).toContain('Let&#x27;s Reach 1 million Passes in 365 days');
    expect(html).toMatch(/<img[^>]*src="\/certificates\/certificate-1\.svg"[^>]*fetchpriority="high"/i);
    expect(html).toMatch(/<head>[\s\S]*<link rel="preload" as="image" href="\/certificates\/certificate-1\.svg" fetchpriority="high"\/>[\s\S]*<\/head>/i);
  });

  for (const { path, file, heading } of PAGES) {
    test(`${path}: its HTML file holds the page, and the client hydrates it without a warning`, async () => {
      const html = readFileSync(resolve(dist, file), 'utf8');
      expect(html).toContain(`data-page="${path}"`);
      expect(html.replaceAll('<!-- -->', '')).toContain(heading);
      // The server sends that file for the path (infra's pageFor), so it paints before any script.
      const served = await (await fetch(site.url + path, { headers: { accept: 'text/html' } })).text();
      expect(served).toContain(`data-page="${path}"`);

      const { page, console } = await open(path);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent()).toContain(heading);
      // Hydrated: React kept the element the HTML made, instead of rendering a new one.
      expect(await page.evaluate(() => document.getElementById('root')?.firstElementChild === (window as { __prerenderedNode?: Element }).__prerenderedNode)).toBe(true);
      // Live figures arrive after hydration without complaint: let the first ones land.
      await page.waitForTimeout(1_000);
      expect(console.filter((m) => HYDRATION_TROUBLE.test(m))).toEqual([]);
      expect(console.filter((m) => m.startsWith('pageerror'))).toEqual([]);
      await page.context().close();
    });
  }

  test('/: the app is fetched only once the page and its largest image are on screen, or the wait limit is up', async () => {
    // The image comes late, as on a slow phone line, so that the app's scripts would come first
    // if the start did not wait for it (on a fast machine it is on screen before any script runs).
    const { page, console } = await open('/', { imageDelayMs: IMAGE_DELAY_MS });
    const timing = await page.evaluate(() => {
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const started = (part: string) => resources.filter((r) => r.name.includes(part)).map((r) => r.startTime);
      return {
        firstPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        largestImageLoaded: resources.find((r) => r.name.endsWith('/certificates/certificate-1.svg'))?.responseEnd ?? NaN,
        entry: started('/assets/main-'),
        entryArrived: resources.find((r) => r.name.includes('/assets/main-'))?.responseEnd ?? NaN,
        bootChunks: ['react', 'router', 'state', 'toast', 'app'].map((name) => started(`/assets/${name}-`)),
      };
    });
    // The entry script comes with the HTML; every start-up chunk was fetched once, after both, or,
    // on a machine too busy to paint in time, once the wait's limit was up: the wait starts when the
    // entry script runs, after it arrived, so no chunk may start before that plus the limit.
    // The paint's time is when the compositor presented the frame; with software rendering on a
    // busy machine that is reported up to a frame after the page's own next frame callback,
    // which is when the start may already go on (pageShown: two frames after the image decoded).
    expect(timing.entry).toHaveLength(1);
    const onScreen = Math.max(timing.firstPaint - PRESENTATION_LAG_MS, timing.largestImageLoaded);
    const limitUp = timing.entryArrived + PAINT_WAIT_LIMIT_MS;
    expect(onScreen).toBeGreaterThan(IMAGE_DELAY_MS);
    expect(limitUp).toBeGreaterThan(PAINT_WAIT_LIMIT_MS);
    for (const starts of timing.bootChunks) {
      expect(starts).toHaveLength(1);
      expect(starts[0]).toBeGreaterThanOrEqual(Math.min(onScreen, limitUp));
    }
    expect(console.filter((m) => m.startsWith('pageerror'))).toEqual([]);
    await page.context().close();
  });

  test('/: a largest image that never arrives does not hold the app back', async () => {
    const context = await site.newContext({ viewport: VIEWPORTS.mobile });
    // Never answered: the start waits for it at most PAINT_WAIT_LIMIT_MS (app/boot/chunks.ts).
    await context.route('**/certificates/certificate-1.svg', () => undefined);
    const page = await site.newPage(context);
    // Not until `load`: the page never has it.
    await page.goto(site.url + '/', { waitUntil: 'domcontentloaded' });
    // The first render after hydration puts the ad slot's frame in (components/AdBanner.tsx).
    await page.locator('footer [data-ad-slot] iframe').waitFor({ state: 'attached', timeout: 10_000 });
    await context.close();
  });

  test('another page path gets a fresh render: the markup of / it came with is discarded, quietly', async () => {
    const { page, console } = await open('/content/join');
    await page.getByLabel('Email').waitFor();
    expect(await page.locator('#hero-title').count()).toBe(0);
    expect(console.filter((m) => HYDRATION_TROUBLE.test(m))).toEqual([]);
    expect(console.filter((m) => m.startsWith('pageerror'))).toEqual([]);
    await page.context().close();
  });
});
