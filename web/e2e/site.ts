/**
 * What the browser test files share: the web build, the standalone process serving it,
 * Chromium, and axe-core.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { spawnStandalone, type SpawnedService } from '@pass/infra/test-support';
import { PRODUCT_NAME } from '@pass/events/kernel';
import { launchBrowser } from './browser';
import { tinyPng } from './png';

export const WEB = resolve(import.meta.dirname, '..');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ROOT = resolve(WEB, '..');
export const ADMIN = { email: 'owner.admin@example.com', password: 'admin-pass-2026' };

/** The phone sizes the layout is checked at. */
export const PHONES = {
  'phone-390': { width: 390, height: 844 },
  'phone-360': { width: 360, height: 740 },
} as const;
export type PhoneName = keyof typeof PHONES;

/** The two devices the member journeys run on: a touch phone and a desktop. */
export const DEVICE_SIZES = {
  phone: { viewport: PHONES['phone-390'], hasTouch: true, isMobile: true },
  desktop: { viewport: { width: 1366, height: 768 }, hasTouch: false, isMobile: false },
} as const;

function newestMtime(paths: string[]): number {
  let newest = 0;
  const visit = (path: string) => {
    const st = statSync(path);
    if (st.isDirectory()) {
      for (const entry of readdirSync(path)) if (entry !== 'node_modules') visit(join(path, entry));
    } else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of paths) if (existsSync(p)) visit(p);
  return newest;
}

function runBuild(args: string[], env: Record<string, string> = {}) {
  const build = spawnSync('npm', ['run', 'build', '-w', '@pass/web', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  if (build.status !== 0) throw new Error(`web build failed:\n${build.stdout}\n${build.stderr}`);
}

/** web/dist, built when missing or older than its sources. */
export function ensureWebBuild(): string {
  const dist = resolve(WEB, 'dist');
  const sources = ['src', 'public', 'scripts', 'index.html', 'vite.config.ts'].map((p) => resolve(WEB, p));
  sources.push(resolve(ROOT, 'events/src'));
  if (!existsSync(resolve(dist, 'index.html')) || statSync(resolve(dist, 'index.html')).mtimeMs < newestMtime(sources)) runBuild([]);
  return dist;
}

export interface Site {
  url: string;
  browser: Browser;
  newContext(options?: { viewport?: { width: number; height: number }; acceptedCookie?: boolean }): Promise<BrowserContext>;
  /** A page whose errors (uncaught, CSP) are collected in `errors`. */
  newPage(context: BrowserContext): Promise<Page>;
  errors: string[];
  stop(): Promise<void>;
}

/** The standalone process (temporary DATA_DIR, bootstrapped admin, test-mode payments) on a dist, and Chromium. */
export async function startSite(dist: string, env: Record<string, string> = {}, options: { startTimeoutMs?: number } = {}): Promise<Site> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pass-e2e-'));
  const [server, browser] = await Promise.all([
    spawnStandalone({
      DATA_DIR: dataDir,
      WEB_DIST_DIR: dist,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PAYMENTS_PROVIDER: 'simulated',
      NODE_ENV: 'test',
      ...env,
    }, options.startTimeoutMs) as Promise<SpawnedService>,
    launchBrowser(),
  ]);
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  return {
    url: server.url.replace(/\/$/, ''),
    browser,
    errors,
    async newContext(options = {}) {
      const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 }, timezoneId: 'UTC', locale: 'en-US' });
      contexts.push(context);
      if (options.acceptedCookie) {
        await context.addInitScript(() => {
          // Every frame runs it, an ad frame's error page too (no storage there).
          try {
            if (window.top === window) window.localStorage.setItem('acceptedCookie', 'true');
          } catch {
            // Not the site's document.
          }
        });
      }
      await serveAxe(context);
      return context;
    },
    async newPage(context) {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) errors.push(`${page.url()}: ${m.text()}`);
      });
      return page;
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs `page` in as the site's bootstrapped admin and waits for the dashboard. */
export async function signInAsAdmin(page: Page, url: string): Promise<void> {
  await page.goto(url + '/content/admin');
  await page.getByLabel('Correo electrónico').fill(ADMIN.email);
  await page.getByLabel('Contraseña').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/content/admin/dashboard');
}

/** Joins with a fresh e-mail from /content/join; the member lands on /content/check. */
export async function joinAsMember(page: Page, url: string, email = `member${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`): Promise<string> {
  await page.goto(url + '/content/join');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('pass1');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.waitForURL('**/content/check');
  return email;
}

/**
 * A member with a card claims passes (at most 5): buys 100 points in test mode, posts the card
 * on /content/post, confirms the passes on /content/amount and is sent home.
 */
export async function claimPasses(page: Page, url: string, card: { fullname: string; message: string; passes: number }): Promise<void> {
  await page.goto(url + '/content/points');
  await page.getByRole('button', { name: 'Buy 100 points for $1' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Pay $1 (test mode, no real payment)' }).click();
  await page.waitForURL('**/content/registered');
  await page.goto(url + '/content/post');
  await page.getByRole('heading', { name: `Get your ${PRODUCT_NAME}` }).waitFor();
  await page.getByLabel('Full name').fill(card.fullname);
  await page.getByLabel('Country').selectOption('Spain');
  await page.getByLabel('Personal link').fill('https://example.com/card');
  await page.getByLabel('Image').setInputFiles({ name: 'card.png', mimeType: 'image/png', buffer: tinyPng() });
  await page.getByRole('textbox', { name: 'Message' }).fill(card.message);
  await page.getByRole('button', { name: `Get ${PRODUCT_NAME}!` }).click();
  await page.waitForURL('**/content/amount');
  await page.getByRole('spinbutton', { name: 'Passes' }).fill(String(card.passes));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.waitForURL(url + '/', { timeout: 20_000 });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core, served from the site's origin so the page's Content-Security-Policy allows it. */
export async function serveAxe(context: BrowserContext): Promise<void> {
  await context.route('**/__axe.min.js', (route) => route.fulfill({ path: AXE, contentType: 'application/javascript' }));
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ url: '/__axe.min.js' });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

/** Whether the control's centre is really reachable: the topmost element there is it or inside it. */
export async function isUncovered(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((el) => {
    const box = el.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return top !== null && (top === el || el.contains(top));
  });
}

/** The boxes overlap. */
export function overlaps(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The body of an .eml file as text: quoted-printable soft breaks and escapes undone. */
export function mailText(raw: string): string {
  if (!/Content-Transfer-Encoding:\s*quoted-printable/i.test(raw)) return raw;
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
