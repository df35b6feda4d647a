/**
 * Browser suite (vitest project "browser"), a member's flows against the real standalone build at
 * a phone (390×844, touch) and a desktop (1366×768): the free-point countdown open in two tabs
 * (one outcome per tab), the chat draft and the amount form read as they are when sent, Back from
 * the amount step keeping the post form, a new member's amount step, the participants header for
 * guests and the not-found page.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { tinyPng } from './png';
import { claimPasses, ensureWebBuild, joinAsMember, seriousAxeViolations, serveAxe, startSite, type Site, DEVICE_SIZES } from './site';

const SUITE = 'browser: member flows (web/e2e/member-flows.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const SIZES = DEVICE_SIZES;
type SizeName = keyof typeof SIZES;

const POINT_ADDED = 'A new point has been added';
const ALREADY_EARNED = 'This countdown already earned its point: open the free points page again';
const NOT_ENOUGH_POINTS = 'You do not have enough points for a pass';
const FREE_POINTS_LINK = 'Get free points in the participants section';

describe.skipIf(!hasChromium)('member flows on the standalone build', () => {
  let site: Site;

  beforeAll(async () => {
    // The machine is shared: the fresh event store may take more than the default minute.
    site = await startSite(ensureWebBuild(), {}, { startTimeoutMs: 170_000 });
  }, 300_000);
  afterAll(async () => {
    await site?.stop();
  });

  /** A context at a size (touch on the phone), with axe served; the cookie notice accepted when asked. */
  async function contextAt(size: SizeName, acceptedCookie = false): Promise<BrowserContext> {
    const context = await site.browser.newContext({ ...SIZES[size], timezoneId: 'UTC', locale: 'en-US' });
    if (acceptedCookie) await context.addInitScript(() => {
      try {
        if (window.top === window) window.localStorage.setItem('acceptedCookie', 'true');
      } catch {
        // An ad frame's document.
      }
    });
    await serveAxe(context);
    return context;
  }

  const axeFound: string[] = [];
  async function checkAxe(page: Page, what: string) {
    for (const v of await seriousAxeViolations(page)) axeFound.push(`${what} ${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
  }

  /** Every text a toast showed on the page, recorded as it appears (toasts leave after 2-4 s). */
  async function recordToasts(context: BrowserContext) {
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { seenToasts: string[] }).seenToasts = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[role="status"]')) {
          const text = el.textContent?.trim() ?? '';
          if (text && !seen.includes(text)) seen.push(text);
        }
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
  }
  const seenToasts = (page: Page) => page.evaluate(() => (window as unknown as { seenToasts: string[] }).seenToasts);

  test('the countdown open in two tabs: one point, and each tab reads one outcome', async () => {
    const context = await contextAt('desktop');
    await recordToasts(context);
    const first = await site.newPage(context);
    await joinAsMember(first, site.url);
    await first.getByText('Your points: 10').waitFor();
    const second = await site.newPage(context);
    await second.goto(site.url + '/content/check');
    await second.getByText('Your points: 10').waitFor();
    await first.getByText(POINT_ADDED).waitFor({ timeout: 40_000 });
    await second.getByText(ALREADY_EARNED).waitFor({ timeout: 10_000 });
    // Both tabs go home at 0; the second never claimed a point it did not get.
    await second.waitForURL(site.url + '/', { timeout: 5_000 });
    expect(await seenToasts(first)).toContain(POINT_ADDED);
    expect(await seenToasts(first)).not.toContain(ALREADY_EARNED);
    expect(await seenToasts(second)).toContain(ALREADY_EARNED);
    expect(await seenToasts(second)).not.toContain(POINT_ADDED);
    await second.goto(site.url + '/content/participants');
    await second.getByText('Your points').locator('..').getByText('11', { exact: true }).waitFor();
    await context.close();
  });

  /** A press as the member makes it: a tap on the touch phone, a click on the desktop. */
  const press = (size: SizeName, target: ReturnType<Page['locator']>) => (size === 'phone' ? target.tap() : target.click());

  /** The post form filled in for the member, image chosen; not sent. */
  async function fillPostForm(page: Page, email: string, name: string) {
    await page.goto(site.url + '/content/post');
    await page.getByLabel('Full name').fill(name);
    await page.getByLabel('Country').selectOption('Spain');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Personal link').fill('https://example.com/flows');
    await page.getByLabel('Image').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: tinyPng() });
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello from the flows');
  }

  /** 100 points bought in test mode (110 with the joining 10: at most 5 passes). */
  async function buyPoints(page: Page) {
    await page.goto(site.url + '/content/points');
    await page.getByRole('button', { name: 'Buy 100 points for $1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /test mode/ }).click();
    await page.waitForURL('**/content/registered');
  }

  for (const size of ['phone', 'desktop'] as const) {
    test(`${size}: a message typed while the last one is sending stays, and Send sends it`, async () => {
      const context = await contextAt(size);
      // No live connection: the chat sends over HTTP, where the first answer is held.
      await context.route('**/socket.io/**', (route) => route.abort());
      const page = await site.newPage(context);
      await joinAsMember(page, site.url);
      await page.goto(site.url + '/content/about');
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let sends = 0;
      await page.route('**/api/chat-messages', async (route) => {
        if (route.request().method() !== 'POST') return route.fallback();
        if (++sends === 1) await held;
        return route.fallback();
      });
      await press(size, page.getByRole('button', { name: /Open chat/ }));
      const chat = page.getByRole('complementary', { name: 'Global chat' });
      const input = chat.getByRole('textbox', { name: 'Message' });
      await input.fill(`first message ${size}`);
      await press(size, chat.getByRole('button', { name: 'Send' }));
      await expect.poll(() => sends).toBe(1);
      await input.fill(`second message ${size}`);
      release();
      await chat.getByText(`first message ${size}`).waitFor();
      // The answer to "first" landed: what was typed meanwhile is still there, and goes as is.
      expect(await input.inputValue()).toBe(`second message ${size}`);
      await press(size, chat.getByRole('button', { name: 'Send' }));
      await chat.getByText(`second message ${size}`).waitFor();
      expect(await chat.getByText('Please enter a message').count()).toBe(0);
      await context.close();
    });
  }

  test('the amount step sent right after a reload waits for the member, then claims', async () => {
    const context = await contextAt('desktop');
    const page = await site.newPage(context);
    const email = await joinAsMember(page, site.url);
    await buyPoints(page);
    await fillPostForm(page, email, 'Reload Member');
    await page.getByRole('button', { name: 'Get Freedom Pass!' }).click();
    await page.waitForURL('**/content/amount');
    const passes = page.getByRole('spinbutton', { name: 'Passes' });
    await passes.fill('6');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('You can get at most 5 passes').waitFor();
    await passes.fill('');
    await page.getByText('Please enter how many passes you want').waitFor();
    expect(await page.getByText('You can get at most 5 passes').count()).toBe(0);
    // The member's record comes back slowly after the reload; Confirm is pressed at once.
    await page.route('**/api/verify-access/**', async (route) => {
      await new Promise((r) => setTimeout(r, 2_000));
      return route.fallback();
    });
    await page.reload();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(site.url + '/', { timeout: 10_000 });
    expect(await page.getByText(NOT_ENOUGH_POINTS).count()).toBe(0);
    await page.goto(site.url + '/content/certificate');
    await page.getByText('Reload Member').waitFor();
    await context.close();
  });

  for (const size of ['phone', 'desktop'] as const) {
    test(`${size}: browser Back from the amount step brings the post form back, image included`, async () => {
      const context = await contextAt(size);
      const page = await site.newPage(context);
      const email = await joinAsMember(page, site.url);
      await fillPostForm(page, email, 'Back Member');
      await press(size, page.getByRole('button', { name: 'Get Freedom Pass!' }));
      await page.waitForURL('**/content/amount');
      await page.goBack();
      await page.waitForURL('**/content/post');
      await page.getByRole('heading', { level: 1, name: 'Get your Freedom Pass' }).waitFor();
      expect(await page.getByLabel('Full name').inputValue()).toBe('Back Member');
      expect(await page.getByLabel('Country').inputValue()).toBe('Spain');
      expect(await page.getByLabel('Personal link').inputValue()).toBe('https://example.com/flows');
      expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Hello from the flows');
      expect(await page.getByLabel('Image').evaluate((el) => [...((el as HTMLInputElement).files ?? [])].map((f) => f.name))).toEqual(['me.png']);
      // Sent again as it is: straight to the amount step, no "Please enter your image".
      await press(size, page.getByRole('button', { name: 'Get Freedom Pass!' }));
      await page.waitForURL('**/content/amount');
      await context.close();
    });

    test(`${size}: a new member's amount step says why no pass, and links to free points`, async () => {
      const context = await contextAt(size);
      const page = await site.newPage(context);
      const email = await joinAsMember(page, site.url);
      await fillPostForm(page, email, 'New Member');
      await press(size, page.getByRole('button', { name: 'Get Freedom Pass!' }));
      await page.waitForURL('**/content/amount');
      await page.getByText(NOT_ENOUGH_POINTS).waitFor();
      const passes = page.getByRole('spinbutton', { name: 'Passes' });
      expect(await passes.inputValue()).toBe('');
      expect(await passes.isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Confirm' }).isDisabled()).toBe(true);
      await checkAxe(page, `${size} amount`);
      const link = page.getByRole('link', { name: FREE_POINTS_LINK });
      await press(size, link);
      await page.waitForURL('**/content/participants');
      await context.close();
    });

    test(`${size}: guests see no points of their own; an unknown path is a page with a way home`, async () => {
      const context = await contextAt(size);
      const page = await site.newPage(context);
      await page.goto(site.url + '/content/participants');
      await page.getByRole('link', { name: 'Join the project' }).waitFor();
      expect(await page.getByText('Your points').count()).toBe(0);
      await checkAxe(page, `${size} participants (guest)`);
      const answer = await page.goto(site.url + '/content/no-such-page');
      expect(answer?.status()).toBe(404);
      await page.getByRole('heading', { level: 1, name: '404 Not Found' }).waitFor();
      // In the site frame: its navigation bar is there.
      await page.getByRole('link', { name: 'Freedom Pass home' }).waitFor();
      await checkAxe(page, `${size} not found`);
      await press(size, page.getByRole('link', { name: 'Go to the home page' }));
      await page.waitForURL(site.url + '/');
      await page.getByRole('heading', { name: /Get Your Free Pass Today!/ }).waitFor();
      await context.close();
    });
  }

  test('search finds any part of a name, of the date as shown, or of what a masked e-mail shows, never the hidden part', async () => {
    const context = await contextAt('desktop', true);
    const page = await site.newPage(context);
    const tag = `q${Date.now().toString(36)}`;
    await joinAsMember(page, site.url);
    await claimPasses(page, site.url, { fullname: `Desk ${tag}`, message: 'Found by any part', passes: 1 });
    // A member without a card: the registry shows zqx****…@found-by-part.com.
    const guest = await contextAt('desktop', true);
    await joinAsMember(await site.newPage(guest), site.url, `zqx${tag}@found-by-part.com`);
    await guest.close();

    // Each search starts from one that finds nobody, so what shows next is that search's answer
    // (not the list as it was).
    const searchFor = async (box: Locator, nobody: Locator, text: string, found: Locator) => {
      await box.fill('zz9nobody');
      await nobody.waitFor();
      await box.fill(text);
      await found.waitFor();
      expect(await nobody.count(), text).toBe(0);
    };

    // Sponsors: "esk" is inside "Desk", next to part of the rest of the name.
    await page.goto(site.url + '/');
    const sponsors = page.locator('#sponsors');
    const sponsorsBox = sponsors.getByRole('searchbox', { name: 'Search sponsors by name or country' });
    // The page is prerendered: the list loaded means the app has taken over the search box.
    await sponsors.getByText(`Desk ${tag}`).waitFor();
    await searchFor(sponsorsBox, sponsors.getByText('No members found.'), `esk ${tag.slice(2)}`, sponsors.getByText(`Desk ${tag}`));
    await checkAxe(page, 'desktop sponsors search');

    // The registry: parts of today's date as dd/mm/yyyy, parts of a masked e-mail.
    const now = new Date();
    const [dd, mm, yyyy] = [now.getUTCDate(), now.getUTCMonth() + 1, now.getUTCFullYear()].map((n) => String(n).padStart(2, '0'));
    await page.goto(site.url + '/content/participants');
    const filter = page.getByRole('searchbox', { name: 'Filter participants by email, name or date' });
    const table = page.locator('table.registry');
    const noRows = page.getByText(/^No member matches/);
    await table.getByText(`Desk ${tag}`).waitFor();
    for (const part of [`${mm}/${yyyy}`, `${dd}/${mm}`, String(yyyy)]) await searchFor(filter, noRows, `${part} ${tag.slice(1, 4)}`, table.getByText(`Desk ${tag}`));
    const maskedRows = table.locator('tbody tr', { hasText: 'found-by-part.com' });
    await searchFor(filter, noRows, 'by-part.co', maskedRows.first());
    expect(await maskedRows.allTextContents()).toEqual([expect.stringMatching(/zqx\*+@found-by-part\.com/)]);
    // The part the mask hides finds nobody.
    await filter.fill(tag);
    await expect.poll(() => maskedRows.count(), { timeout: 10_000 }).toBe(0);
    await table.getByText(`Desk ${tag}`).waitFor();
    await context.close();
  });

  test('axe finds nothing serious or critical on the pages touched, at both sizes', () => {
    expect(axeFound).toEqual([]);
  });

  test('no page error and nothing the Content-Security-Policy refused', () => {
    expect(site.errors).toEqual([]);
  });
});
