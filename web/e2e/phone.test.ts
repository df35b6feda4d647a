/**
 * Browser suite (vitest project "browser"): the phone layout at 390×844 and 360×740 (no control
 * covered by the cookie notice, the registry's Points column in view, in-page links below the
 * sticky bar), keyboard use of the modal dialogs, the guards' messages, an ad blocker that leaves
 * empty ad frames in place, and axe-core (no serious or critical violation) on every page at
 * both phone widths. Debian's Chromium against the real standalone build (see journeys.test.ts).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { ensureWebBuild, isUncovered, joinAsMember, overlaps, type PhoneName, PHONES, seriousAxeViolations, signInAsAdmin, type Site, startSite } from './site';

const SUITE = 'browser: phone layout, keyboard, guards and axe (web/e2e/phone.test.ts)';
const AD_BLOCK_TEXT =
  'Oops, it looks like your network connection is slow or your browser is using an ad blocker - please allow ads and refresh the page or try using another browser.';

const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const phones = Object.keys(PHONES) as PhoneName[];

describe.skipIf(!hasChromium)('phone layout, keyboard, guards and axe', () => {
  let site: Site;
  let member: Page;

  beforeAll(async () => {
    site = await startSite(ensureWebBuild());
    // A member (the cookie not accepted: no ads popup comes in the way of the checks below).
    member = await site.newPage(await site.newContext({ viewport: PHONES['phone-390'] }));
    await joinAsMember(member, site.url);
  });

  afterAll(async () => {
    await site?.stop();
  });

  test.each(phones)('%s: the cookie notice covers neither the chat input nor its send button', async (phone) => {
    const page = await site.newPage(await site.newContext({ viewport: PHONES[phone] }));
    await page.goto(site.url + '/');
    const cookie = page.getByRole('region', { name: 'Cookie notice' });
    await cookie.waitFor();
    await page.getByRole('button', { name: /^Open chat/ }).click();
    const chat = page.getByRole('complementary', { name: 'Global chat' });
    const input = chat.getByRole('textbox', { name: 'Message' });
    const send = chat.getByRole('button', { name: 'Send' });
    await input.waitFor();
    // Measured with each control: the top dock grows when a toast shows and moves the page down.
    for (const control of [input, send]) {
      const [notice, box] = [(await cookie.boundingBox())!, (await control.boundingBox())!];
      expect(overlaps(notice, box)).toBe(false);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONES[phone].width);
      expect(box.y + box.height).toBeLessThanOrEqual(PHONES[phone].height);
    }
    expect(await isUncovered(page, '.chat-panel input')).toBe(true);
    expect(await isUncovered(page, '.chat-panel button[type="submit"]')).toBe(true);
    // Nor does it cover the floating bar's controls. (Scrolled, the notice, in the page's flow,
    // passes under the sticky top dock like the rest of the page: the dock stays on top.)
    for (const control of ['.floating-bar .day-counter', '.floating-bar .chat-toggle', '.floating-bar .viewers']) expect(await isUncovered(page, control), control).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.context().close();
  });

  test.each(phones)('%s: the registry shows the Points column, inside a focusable labelled region', async (phone) => {
    await member.setViewportSize(PHONES[phone]);
    await member.goto(site.url + '/content/participants');
    const region = member.getByRole('region', { name: 'Participants table' });
    await region.waitFor();
    expect(await region.getAttribute('tabindex')).toBe('0');
    const points = member.getByRole('columnheader', { name: 'Points' });
    const box = (await points.boundingBox())!;
    // In view without scrolling sideways, like the member's own row's figures.
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONES[phone].width);
    const own = member.locator('tr[aria-current="true"] td').last();
    const cell = (await own.boundingBox())!;
    expect(cell.x + cell.width).toBeLessThanOrEqual(PHONES[phone].width);
    expect(await member.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    // The keyboard reaches the region.
    await region.focus();
    expect(await region.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  test.each(phones)('%s: the Members link lands the section heading below the sticky bar', async (phone) => {
    const page = await site.newPage(await site.newContext({ viewport: PHONES[phone], acceptedCookie: false }));
    await page.goto(site.url + '/content/about');
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('navigation', { name: 'Side menu' }).getByRole('link', { name: /Members/ }).click();
    await page.waitForURL(site.url + '/#sponsors');
    const heading = page.getByRole('heading', { name: 'Sponsors' });
    await heading.waitFor();
    const bar = page.locator('.navbar');
    // The smooth scroll settles where the heading's top is below the bar's bottom.
    await expect
      .poll(async () => {
        const [h, b] = [(await heading.boundingBox())!, (await bar.boundingBox())!];
        return h.y >= b.y + b.height && h.y < PHONES[phone].height / 2;
      }, { timeout: 5_000 })
      .toBe(true);
    await page.context().close();
  });

  test('the checkout dialog: focus moves in, stays on Tab, Escape closes it and focus returns to the Buy button', async () => {
    await member.setViewportSize(PHONES['phone-390']);
    await member.goto(site.url + '/content/points');
    const buy = member.getByRole('button', { name: 'Buy 100 points for $1' });
    await buy.focus();
    await member.keyboard.press('Enter');
    const dialog = member.getByRole('dialog', { name: /\$1 — 100 points/ });
    await dialog.getByRole('button', { name: /test mode/ }).waitFor();
    const inside = () => dialog.evaluate((d) => d.contains(document.activeElement));
    expect(await inside()).toBe(true);
    expect(await dialog.evaluate((d) => d.tagName === 'DIALOG' && (d as HTMLDialogElement).matches(':modal'))).toBe(true);
    for (let i = 0; i < 6; i++) {
      await member.keyboard.press('Tab');
      expect(await inside()).toBe(true);
    }
    await member.keyboard.press('Shift+Tab');
    expect(await inside()).toBe(true);
    await member.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await buy.evaluate((b) => b === document.activeElement)).toBe(true);
  });

  test('guards: a guest opening /content/check is sent to join with a line that says why', async () => {
    const page = await site.newPage(await site.newContext({ viewport: PHONES['phone-360'] }));
    await page.goto(site.url + '/content/check');
    await page.waitForURL('**/content/join');
    await page.getByText('Free points are added to a member\'s account: join (or sign in) first, then the countdown starts.').waitFor();
    await page.context().close();
  });

  test('an ad blocker that refuses the banners but leaves their frames: the notice, no ads popup, not sent home', async () => {
    const context = await site.newContext({ viewport: PHONES['phone-390'], acceptedCookie: true });
    await context.route('**/ads/house-*.html', (route) => route.abort('blockedbyclient'));
    const page = await site.newPage(context);
    await page.goto(site.url + '/');
    // The frame element is still there.
    await page.locator('[data-ad-slot="main"] iframe').waitFor();
    const notice = page.getByRole('alert').filter({ hasText: 'ad blocker' });
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toBe(AD_BLOCK_TEXT);
    // The notice passes axe-core too.
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Past the first popup's time and its 10 s countdown: no popup, still home, no toast.
    await page.waitForTimeout(12_000);
    expect(await page.getByRole('dialog', { name: 'Ads keep this project alive' }).count()).toBe(0);
    expect(await page.getByText('Network connection lost').count()).toBe(0);
    expect(page.url()).toBe(site.url + '/');
    await context.close();
  });

  /** Every page a visitor, a member and the admin reach, with who opens it. */
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
    { path: '/content/admin/dashboard', as: 'admin', ready: 'Panel de administración' },
  ];

  test.each(phones)('%s: axe-core finds no serious or critical violation on any page', async (phone) => {
    const guest = await site.newPage(await site.newContext({ viewport: PHONES[phone] }));
    const admin = await site.newPage(await site.newContext({ viewport: PHONES[phone] }));
    await signInAsAdmin(admin, site.url);
    await member.setViewportSize(PHONES[phone]);
    const found: string[] = [];
    for (const { path, as, ready } of PAGES) {
      const page = as === 'guest' ? guest : as === 'member' ? member : admin;
      await page.goto(site.url + path);
      await page.getByRole('heading', { level: 1, name: ready }).first().waitFor();
      // Lazy images and the live data settle.
      await page.waitForTimeout(300);
      for (const v of await seriousAxeViolations(page)) found.push(`${as} ${path} ${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
    }
    // The router's error screen.
    await guest.goto(site.url + '/content/no-such-page');
    await guest.getByText('Unexpected Application Error!').waitFor();
    for (const v of await seriousAxeViolations(guest)) found.push(`guest 404 ${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
    // The modal checkout too.
    await member.goto(site.url + '/content/points');
    await member.getByRole('button', { name: 'Buy 100 points for $1' }).click();
    await member.getByRole('dialog').getByRole('button', { name: /test mode/ }).waitFor();
    for (const v of await seriousAxeViolations(member)) found.push(`member checkout ${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
    await member.keyboard.press('Escape');
    expect(found).toEqual([]);
    await guest.context().close();
    await admin.context().close();
  });

  test('no page error and nothing the Content-Security-Policy refused', () => {
    expect(site.errors).toEqual([]);
  });
});
