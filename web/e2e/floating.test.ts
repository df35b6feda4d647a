/**
 * Browser suite (vitest project "browser"): no floating element (toast, newest-post popup, floating
 * bar, cookie notice, open chat panel) covers a control, on every page at 390×844 (touch) and
 * 1366×768, while each of them shows: the welcome toast and the newest post come on a load of /,
 * then each page opens in the same visit. Also the registry's e-mails break only after '@' or at a
 * '.', the /content close X takes no band of its own on a phone, and axe-core at both sizes.
 * Debian's Chromium against the real standalone build (see journeys.test.ts).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { PRODUCT_NAME } from '@pass/events/kernel';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { floatingOverlaps, floatingShown, type FloatingOverlap } from './floating';
import { claimPasses, ensureWebBuild, isUncovered, joinAsMember, seriousAxeViolations, serveAxe, signInAsAdmin, type Site, startSite } from './site';

const SUITE = 'browser: floating elements cover no control (web/e2e/floating.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const SIZES = {
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
  desktop: { viewport: { width: 1366, height: 768 }, hasTouch: false, isMobile: false },
} as const;
type SizeName = keyof typeof SIZES;

const POSTER = { fullname: 'Fiona Float', message: 'Hello from the floating test' };

/** Every page a visitor, a member and the admin reach, with who opens it and its heading. */
const PAGES: Array<{ path: string; as: 'guest' | 'member' | 'admin'; ready: string | RegExp }> = [
  { path: '/', as: 'guest', ready: /Get Your Free Pass Today!/ },
  { path: '/content/about', as: 'guest', ready: /./ },
  { path: '/content/join', as: 'guest', ready: /^Join / },
  { path: '/content/participants', as: 'guest', ready: 'Participants' },
  { path: '/content/progress', as: 'guest', ready: 'Progress' },
  { path: '/content/admin', as: 'guest', ready: 'Administración' },
  { path: '/', as: 'member', ready: /Get Your Free Pass Today!/ },
  { path: '/content/check', as: 'member', ready: 'Free Points' },
  { path: '/content/participants', as: 'member', ready: 'Participants' },
  { path: '/content/points', as: 'member', ready: 'Buy Points' },
  { path: '/content/post', as: 'member', ready: /^Get your / },
  { path: '/content/my-data', as: 'member', ready: /./ },
  { path: '/content/admin/dashboard', as: 'admin', ready: 'Panel de administración' },
];

/** A member posts a card with a greeting: from then on every load shows the newest-post popup. */
async function postCard(site: Site): Promise<void> {
  const poster = await site.newPage(await site.newContext());
  await joinAsMember(poster, site.url);
  await claimPasses(poster, site.url, { ...POSTER, passes: 1 });
  await poster.context().close();
}

/** Opens `path` inside the running app (no reload: the toast and the popup stay), as a link would. */
async function openInApp(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState({}, '', to);
    window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
  }, path);
}

const ALL_SHOWING = ['toast', 'newest-post popup', 'floating bar'];

/**
 * A fresh visit of `path` with the welcome toast (2 s after home shows, 4 s long), the newest post
 * (10 s) and the bar showing; what shows at the end. A busy machine (the suites run side by side)
 * may open the page after the toast's 4 s: the visit is then made again, at most three times.
 */
async function visitWhileFloatingShows(page: Page, home: string, path: string, ready: string | RegExp): Promise<string[]> {
  let shown: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.goto(home);
    await page.getByText(`Welcome to ${PRODUCT_NAME}!`).waitFor();
    await page.locator('.new-member').getByText(`${POSTER.fullname} says:`).waitFor();
    await openInApp(page, path);
    await page.getByRole('heading', { level: 1, name: ready }).first().waitFor();
    shown = await floatingShown(page);
    if (ALL_SHOWING.every((name) => shown.includes(name))) break;
  }
  return shown;
}

const lines = (where: string, found: FloatingOverlap[]) => found.map((o) => `${where}: ${o.text}`);

describe.skipIf(!hasChromium)('floating elements cover no control', () => {
  let site: Site;
  const contexts: BrowserContext[] = [];

  /** A context at the size (the cookie not accepted: its notice shows, no ads popup). */
  async function pageAt(size: SizeName): Promise<Page> {
    const context = await site.browser.newContext({ ...SIZES[size], timezoneId: 'UTC', locale: 'en-US' });
    await serveAxe(context);
    contexts.push(context);
    return site.newPage(context);
  }

  async function adminAt(size: SizeName): Promise<Page> {
    const admin = await pageAt(size);
    await signInAsAdmin(admin, site.url);
    return admin;
  }

  beforeAll(async () => {
    const dist = ensureWebBuild();
    // A busy machine (the suites run side by side) may take longer than the usual minute to start it.
    site = await startSite(dist, {}, { startTimeoutMs: 180_000 });
    await postCard(site);
  }, 300_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await site?.stop();
  });

  test.each(Object.keys(SIZES) as SizeName[])('%s: on every page, with the toast, the newest post, the bar, the notice and the chat showing', async (size) => {
    const who = { guest: await pageAt(size), member: await pageAt(size), admin: await adminAt(size) };
    await joinAsMember(who.member, site.url);
    const found: string[] = [];
    const chat: string[] = [];
    const axe: string[] = [];
    for (const { path, as, ready } of PAGES) {
      const page = who[as];
      const where = `${size} ${as} ${path}`;
      // The page once first, so its lazy code is at hand within the toast's 4 s below.
      await page.goto(site.url + path);
      await page.getByRole('heading', { level: 1, name: ready }).first().waitFor();
      const shown = await visitWhileFloatingShows(page, site.url + '/', path, ready);
      expect(shown, where).toEqual(expect.arrayContaining(ALL_SHOWING));
      found.push(...lines(where, await floatingOverlaps(page)));
      // The side menu on a phone, the toast still showing.
      if (size === 'phone') {
        await page.getByRole('button', { name: 'Open menu' }).click();
        const menu = page.getByRole('navigation', { name: 'Side menu' });
        await menu.getByRole('link').first().waitFor();
        await page.waitForTimeout(300);
        const inMenu = (await floatingOverlaps(page, '#side-menu'));
        found.push(...lines(`${where} (side menu)`, inMenu));
        await page.keyboard.press('Escape');
      }
      for (const v of await seriousAxeViolations(page)) axe.push(`${where} ${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
      // The open chat panel, the popup still showing.
      await page.getByRole('button', { name: /^Open chat/ }).click();
      await page.getByRole('complementary', { name: 'Global chat' }).waitFor();
      for (const o of await floatingOverlaps(page)) {
        // The chat panel's own place is checked by web/e2e/typing.test.ts (the chat's owner); reported here.
        (o.floating === 'chat panel' ? chat : found).push(`${where} (chat open): ${o.text}`);
      }
    }
    if (chat.length) process.stderr.write(`the open chat panel covers:\n${chat.join('\n')}\n`);
    expect(found).toEqual([]);
    expect(axe).toEqual([]);
  }, 420_000);
  test("phone: the member's own e-mail in the registry wraps after '@' or before a '.', never mid-word", async () => {
    const page = await pageAt('phone');
    // As long as the join form takes (30 characters): wider than the column at 390 px.
    const email = `flo.${Date.now().toString(36)}@mail.example.com`;
    await joinAsMember(page, site.url, email);
    await page.goto(site.url + '/content/participants');
    const cell = page.locator('tr[aria-current="true"] td').nth(1);
    await cell.getByText(email).waitFor();
    // Where each line of the cell's text starts: the index of its first character.
    const starts = await cell.evaluate((td) => {
      const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      const chars: Array<{ index: number; top: number }> = [];
      let index = 0;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (let i = 0; i < text.length; i++, index++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (rect && text.charAt(i).trim()) chars.push({ index, top: Math.round(rect.top) });
        }
      }
      return chars.filter((c, i) => i > 0 && c.top > chars[i - 1]!.top + 2).map((c) => c.index);
    });
    const text = (await cell.textContent())!;
    const offset = text.indexOf(email);
    expect(starts.length, 'the e-mail is wider than the column').toBeGreaterThan(0);
    for (const start of starts) {
      const at = start - offset;
      expect(email[at - 1] === '@' || email[at] === '.', `a line starts at "${email.slice(at)}"`).toBe(true);
    }
  });

  test.each(['/content/participants', '/content/join'])('phone: %s has no band above the card for the close X', async (path) => {
    const page = await pageAt('phone');
    await page.goto(site.url + path);
    const close = page.getByRole('link', { name: 'Close and go home' });
    await close.waitFor();
    const heading = page.getByRole('heading', { level: 1 }).first();
    const [x, h, panel, content] = [
      (await close.boundingBox())!, (await heading.boundingBox())!,
      (await page.locator('.content > .panel').boundingBox())!, (await page.locator('.content').boundingBox())!,
    ];
    // The card starts at the top of the content area, the X on its corner, beside the heading.
    expect(panel.y - content.y).toBeLessThanOrEqual(16);
    expect(x.y).toBeLessThan(panel.y + 16);
    expect(x.x + x.width).toBeLessThanOrEqual(panel.x + panel.width);
    expect(h.x + h.width).toBeLessThanOrEqual(x.x);
    expect(await isUncovered(page, '.content-close')).toBe(true);
  });
});
