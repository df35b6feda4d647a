/**
 * Screenshots of the main screens at 1280×800 and 390×844 into web/e2e/screenshots/.
 * Usage: npm run build -w @pass/web && npm run e2e:screens -w @pass/web [-- <baseUrl>]
 * Without a base URL it serves web/dist with `vite preview` and answers the API from fixtures;
 * with one (the standalone server) it uses the real backend.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, VIEWPORTS, type ViewportName } from './browser';
import { startPreview } from './preview';
import { fixtures, mockApi, type MockOptions } from './fixtures';

const OUT = resolve(import.meta.dirname, 'screenshots');

interface Screen {
  name: string;
  path: string;
  /** Local storage set before the app starts. */
  storage?: Record<string, string>;
  mock?: MockOptions;
  /** Extra steps before the shot. */
  act?: (page: Page) => Promise<void>;
  fullPage?: boolean;
}

const accepted = { acceptedCookie: 'true' };
const asMember = { ...accepted, userId: fixtures.member.id };

export const SCREENS: Screen[] = [
  { name: 'home-guest', path: '/', act: (p) => p.waitForTimeout(2500) },
  { name: 'home', path: '/', storage: asMember, mock: { member: true }, fullPage: true, act: (p) => p.waitForTimeout(2500) },
  { name: 'join', path: '/content/join', storage: accepted, act: async (p) => { await p.getByRole('button', { name: 'Join' }).click(); } },
  { name: 'check', path: '/content/check', storage: asMember, mock: { member: true }, act: (p) => p.waitForTimeout(3000) },
  { name: 'participants', path: '/content/participants', storage: asMember, mock: { member: true } },
  { name: 'points', path: '/content/points', storage: asMember, mock: { member: true } },
  {
    name: 'points-checkout', path: '/content/points', storage: asMember, mock: { member: true },
    act: async (p) => { await p.getByRole('button', { name: /Buy 500 points/ }).click(); },
  },
  { name: 'post', path: '/content/post', storage: asMember, mock: { member: true }, act: async (p) => {
    await p.getByRole('button', { name: 'Update Certificate!' }).click();
  } },
  { name: 'certificate', path: '/content/certificate', storage: asMember, mock: { member: true } },
  { name: 'about', path: '/content/about', storage: accepted },
  { name: 'admin-login', path: '/content/admin', storage: accepted },
  { name: 'admin-dashboard', path: '/content/admin/dashboard', storage: { ...accepted, adminId: 'a-1' }, mock: { admin: true }, fullPage: true },
  {
    name: 'chat', path: '/', storage: asMember, mock: { member: true },
    act: async (p) => { await p.getByRole('button', { name: /Open chat/ }).click(); await p.waitForTimeout(500); },
  },
  {
    name: 'ads-popup', path: '/', storage: { acceptedCookie: 'true' },
    act: async (p) => { await p.waitForTimeout(6000 + 9500); },
  },
  { name: 'not-found', path: '/nope' },
];

async function shoot(browser: Browser, baseUrl: string, useFixtures: boolean, viewport: ViewportName, screen: Screen) {
  const context: BrowserContext = await browser.newContext({ viewport: VIEWPORTS[viewport] });
  const storage = screen.storage ?? {};
  await context.addInitScript((entries: Record<string, string>) => {
    for (const [k, v] of Object.entries(entries)) window.localStorage.setItem(k, v);
  }, storage);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (useFixtures) await mockApi(page, screen.mock);
  await page.goto(baseUrl + screen.path, { waitUntil: 'networkidle' }).catch(() => page.goto(baseUrl + screen.path));
  // The first URL's lazy route and main data: wait until the loading overlay is gone.
  await page.locator('.loading-overlay').waitFor({ state: 'detached', timeout: 20_000 }).catch(() => undefined);
  await page.waitForTimeout(400);
  if (screen.act) await screen.act(page);
  const file = resolve(OUT, `${screen.name}-${viewport}.png`);
  await page.screenshot({ path: file, fullPage: screen.fullPage ?? false });
  await context.close();
  return { file, errors };
}

/** Takes every screenshot against `baseUrl`; `useFixtures` answers the API from fixtures. */
export async function takeScreenshots(
  baseUrl: string,
  useFixtures: boolean,
  only?: string[],
): Promise<{ files: string[]; pageErrors: number }> {
  mkdirSync(OUT, { recursive: true });
  const browser = await launchBrowser();
  const files: string[] = [];
  let pageErrors = 0;
  try {
    const screens = only?.length ? SCREENS.filter((s) => only.includes(s.name)) : SCREENS;
    for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
      // A few at a time: the machine is shared, and slow starts make for blank shots.
      const results = [];
      for (let i = 0; i < screens.length; i += 5) {
        results.push(...(await Promise.all(screens.slice(i, i + 5).map((s) => shoot(browser, baseUrl, useFixtures, viewport, s)))));
      }
      for (const r of results) {
        files.push(r.file);
        pageErrors += r.errors.length;
        if (r.errors.length) process.stderr.write(`page errors in ${r.file}: ${r.errors.join(' | ')}\n`);
      }
    }
  } finally {
    await browser.close();
  }
  return { files, pageErrors };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const external = args.find((a) => a.startsWith('http'));
  const only = args.filter((a) => !a.startsWith('http'));
  const preview = external ? null : await startPreview();
  try {
    const { files, pageErrors } = await takeScreenshots(external ?? preview!.baseUrl, !external, only);
    process.stdout.write(`${files.length} screenshots in ${OUT}; ${pageErrors} page errors\n`);
    if (pageErrors > 0) process.exitCode = 1;
  } finally {
    await preview?.stop();
  }
}
