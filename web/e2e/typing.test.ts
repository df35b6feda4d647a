/**
 * Browser suite (vitest project "browser"): typing and the chat panel around what opens by itself.
 *   - The ads popup opens on its timer (7 s after the load, once the ad check ran) while the member
 *     types a long text in the post form's Message field or the chat input: no key is lost, the
 *     focus comes back to the field, and the popup still opens and closes on the spec's times.
 *   - A guest who presses Send in the chat lands on /content/join with the panel closed, the
 *     form and its explanation uncovered; Escape closes the panel and gives the focus back to
 *     the chat toggle; on a desktop the open panel covers no control ("Request Your Pass").
 * Phone 390×844 with touch, desktop 1366×768; Debian's Chromium against the standalone build.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { ensureWebBuild, isUncovered, joinAsMember, overlaps, seriousAxeViolations, serveAxe, startSite, type Site, DEVICE_SIZES } from './site';

const SUITE = 'browser: typing across the ads popup, the chat panel (web/e2e/typing.test.ts)';
const JOIN_REASON = "Each chat message costs a point from a member's account: join (or sign in) first, then send your message.";

const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const SIZES = DEVICE_SIZES;
type Size = keyof typeof SIZES;
const sizes = Object.keys(SIZES) as Size[];

/** About 9 s of typing at 100 ms a key: it starts before the popup opens (7 s) and goes on while it is open. */
const LONG_TEXT = 'The quick brown fox jumps over the lazy dog again and again, while the ads popup comes and goes';

describe.skipIf(!hasChromium)('typing across the ads popup, and the chat panel', () => {
  let site: Site;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    site = await startSite(ensureWebBuild());
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await site?.stop();
  });

  async function newPage(size: Size, acceptedCookie: boolean): Promise<Page> {
    const context = await site.browser.newContext({ ...SIZES[size], timezoneId: 'UTC', locale: 'en-US' });
    contexts.push(context);
    await serveAxe(context);
    if (acceptedCookie) await context.addInitScript(() => {
      try {
        if (window.top === window) window.localStorage.setItem('acceptedCookie', 'true');
      } catch {
        // An ad frame's document: no storage there.
      }
    });
    return site.newPage(context);
  }

  /** A tap on a phone, a click on a desktop. */
  async function press(size: Size, control: Locator) {
    if (SIZES[size].hasTouch) await control.tap();
    else await control.click();
  }

  /**
   * Types LONG_TEXT into the focused field while the popup opens, waits for the popup to close by
   * itself (10 s), then types " ok": the field holds every key, and has the focus back.
   */
  async function typeAcrossPopup(page: Page, field: Locator, loadedAt: number) {
    const popup = page.getByRole('dialog', { name: 'Ads keep this project alive' });
    let openedAt = 0;
    const opened = popup.waitFor({ timeout: 20_000 }).then(() => (openedAt = Date.now()));
    const typingFrom = Date.now();
    await page.keyboard.type(LONG_TEXT, { delay: 100 });
    const typingTo = Date.now();
    await opened;
    // The popup really opened while the keys were being typed, on its time (after the 7 s check).
    expect(openedAt).toBeGreaterThan(typingFrom);
    expect(openedAt).toBeLessThan(typingTo);
    expect(openedAt - loadedAt).toBeGreaterThanOrEqual(6_000);
    expect(await popup.isVisible()).toBe(true);
    await popup.waitFor({ state: 'detached', timeout: 15_000 });
    expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type(' ok');
    expect(await field.inputValue()).toBe(`${LONG_TEXT} ok`);
  }

  test.each(sizes)('%s: typing in the post form\'s Message field across the ads popup loses no key', async (size) => {
    const page = await newPage(size, false);
    await joinAsMember(page, site.url);
    await page.evaluate(() => window.localStorage.setItem('acceptedCookie', 'true'));
    const loadedAt = Date.now();
    await page.goto(site.url + '/content/post');
    // The form is filled from the member's record once it arrives: typed after that.
    await page.waitForFunction(() => (document.querySelector('input[type="email"]') as HTMLInputElement | null)?.value.includes('@'));
    const message = page.getByRole('textbox', { name: 'Message' });
    await press(size, message);
    await typeAcrossPopup(page, message, loadedAt);
  });

  test.each(sizes)('%s: typing in the chat input across the ads popup loses no key', async (size) => {
    const page = await newPage(size, true);
    const loadedAt = Date.now();
    await page.goto(site.url + '/');
    await press(size, page.getByRole('button', { name: /^Open chat/ }));
    const input = page.getByRole('complementary', { name: 'Global chat' }).getByRole('textbox', { name: 'Message' });
    await press(size, input);
    await typeAcrossPopup(page, input, loadedAt);
  });

  test('phone: a guest who presses Send lands on /content/join with the chat closed, the form uncovered', async () => {
    const page = await newPage('phone', false);
    await page.goto(site.url + '/');
    await press('phone', page.getByRole('button', { name: /^Open chat/ }));
    const chat = page.getByRole('complementary', { name: 'Global chat' });
    await press('phone', chat.getByRole('textbox', { name: 'Message' }));
    await page.keyboard.type('Hello everyone');
    await press('phone', chat.getByRole('button', { name: 'Send' }));
    await page.waitForURL('**/content/join');
    const reason = page.getByText(JOIN_REASON);
    await reason.waitFor();
    expect(await chat.count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Open chat/ }).getAttribute('aria-pressed')).toBe('false');
    for (const selector of ['.notice', 'input[type="email"]', 'input[type="password"]', 'form button[type="submit"]']) {
      await page.locator(selector).scrollIntoViewIfNeeded();
      expect(await isUncovered(page, selector), selector).toBe(true);
    }
    // The draft waits in the chat for after the join.
    await press('phone', page.getByRole('button', { name: /^Open chat/ }));
    expect(await chat.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Hello everyone');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  test.each(sizes)('%s: Escape closes the chat panel and gives the focus back to the chat toggle', async (size) => {
    const page = await newPage(size, false);
    await page.goto(site.url + '/');
    const toggle = page.getByRole('button', { name: /^(Open|Close) chat/ });
    const chat = page.getByRole('complementary', { name: 'Global chat' });
    // From the input, with a draft.
    await toggle.focus();
    await page.keyboard.press('Enter');
    const input = chat.getByRole('textbox', { name: 'Message' });
    await input.focus();
    await page.keyboard.type('Draft');
    await page.keyboard.press('Escape');
    await chat.waitFor({ state: 'detached' });
    expect(await toggle.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    // From the toggle itself, right after opening.
    await page.keyboard.press('Enter');
    await input.waitFor();
    expect(await input.inputValue()).toBe('Draft');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await chat.waitFor({ state: 'detached' });
    expect(await toggle.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  test('desktop: the open chat panel covers neither "Request Your Pass" nor the page beside it', async () => {
    const page = await newPage('desktop', false);
    await page.goto(site.url + '/');
    await page.getByRole('button', { name: /^Open chat/ }).click();
    const chat = page.getByRole('complementary', { name: 'Global chat' });
    await chat.getByRole('textbox', { name: 'Message' }).waitFor();
    const request = page.getByRole('link', { name: 'Request Your Pass' });
    for (const block of ['center', 'end', 'start'] as const) {
      await request.evaluate((el, b) => el.scrollIntoView({ block: b }), block);
      const panel = (await chat.boundingBox())!;
      expect(overlaps(panel, (await request.boundingBox())!), block).toBe(false);
      // What lies on top of its centre is not the panel (the floating bar and the sticky
      // navigation bar are other matters: the button is uncovered where it is scrolled to the centre).
      const under = await request.evaluate((el) => {
        const box = el.getBoundingClientRect();
        const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return top ? top.closest('.chat-panel') !== null : false;
      });
      expect(under, block).toBe(false);
      if (block === 'center') expect(await isUncovered(page, '.goal-line .button')).toBe(true);
      // The page keeps the panel's room: nothing in it lies under the panel.
      const main = (await page.locator('main').boundingBox())!;
      expect(main.x + main.width).toBeLessThanOrEqual(panel.x);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Closed, the page has the whole width again.
    await chat.getByRole('button', { name: 'Close chat' }).click();
    await chat.waitFor({ state: 'detached' });
    const width = await page.evaluate(() => document.documentElement.clientWidth);
    expect((await page.locator('main').boundingBox())!.width).toBe(width);
    expect(site.errors).toEqual([]);
  });
});
