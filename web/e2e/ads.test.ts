/**
 * Browser suite (vitest project "browser"): the ad flow in the order of docs/product.md §4 with the ad
 * network's script, both ways. The standalone process runs with AD_NETWORK_KEY and
 * AD_NETWORK_HOST (it writes them into the page, its CSP allows the network); the network's
 * requests are answered by the test, since the machine has no network:
 *   - served: a stub invoke.js that inserts a 300×250 iframe, as the network's does. The first
 *     popup opens after the 7 s check, takes the focus, keeps it on Tab, closes on Escape once its
 *     banners loaded, and gives the focus back; no ad-block notice.
 *   - blocked (route abort, as a blocker does): the 7 s check shows the spec's notice, no popup
 *     ever opens and the member is not sent home.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { ensureWebBuild, PHONES, seriousAxeViolations, startSite, type Site } from './site';

const SUITE = 'browser: the ad flow with the network served and blocked (web/e2e/ads.test.ts)';
const KEY = 'e2e0ad0key';
const HOST = 'ads.example.test';
const AD_BLOCK_TEXT =
  'Oops, it looks like your network connection is slow or your browser is using an ad blocker - please allow ads and refresh the page or try using another browser.';

/** What the network's invoke.js does, in short: an iframe of the ad's size where the script is. */
const STUB_INVOKE = `(function () {
  var frame = document.createElement('iframe');
  frame.width = String(atOptions.width); frame.height = String(atOptions.height);
  frame.title = 'Ad'; frame.style.border = '0';
  document.body.appendChild(frame);
})();`;

const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

describe.skipIf(!hasChromium)('the ad flow with the ad network', () => {
  let site: Site;

  beforeAll(async () => {
    site = await startSite(ensureWebBuild(), { AD_NETWORK_KEY: KEY, AD_NETWORK_HOST: HOST });
  });

  afterAll(async () => {
    await site?.stop();
  });

  async function openHome(serve: boolean): Promise<{ page: Page; requested: string[] }> {
    const context = await site.newContext({ viewport: PHONES['phone-390'], acceptedCookie: true });
    const requested: string[] = [];
    await context.route(`https://${HOST}/**`, (route) => {
      requested.push(route.request().url());
      return serve
        ? route.fulfill({ status: 200, contentType: 'application/javascript', body: STUB_INVOKE })
        : route.abort('blockedbyclient');
    });
    const page = await site.newPage(context);
    await page.goto(site.url + '/');
    await page.getByRole('heading', { name: /Get Your Free Pass Today!/ }).waitFor();
    return { page, requested };
  }

  async function served() {
    const { page, requested } = await openHome(true);
    const started = Date.now();
    // Where the visitor was: the focus comes back here when the popup goes.
    const join = page.locator('.hero').getByRole('link', { name: 'Join' });
    await join.focus();
    const popup = page.getByRole('dialog', { name: 'Ads keep this project alive' });
    await popup.waitFor({ timeout: 12_000 });
    // Not before the 7 s ad-block check.
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_000);
    expect(requested.some((u) => u.endsWith(`/${KEY}/invoke.js`))).toBe(true);
    expect(await popup.evaluate((d) => d.tagName === 'DIALOG' && d.matches(':modal'))).toBe(true);
    const inside = () => popup.evaluate((d) => d.contains(document.activeElement));
    expect(await inside()).toBe(true);
    // Before the banners count as loaded (9 s), Escape does nothing.
    await page.keyboard.press('Escape');
    expect(await popup.isVisible()).toBe(true);
    // The open popup passes axe-core: scanned while its banners load, because the spec's 10 s
    // countdown closes it by itself, and a scan on a loaded machine takes seconds.
    expect(await seriousAxeViolations(page)).toEqual([]);
    const close = popup.getByRole('button', { name: 'Close ads' });
    await close.waitFor({ timeout: 12_000 });
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      expect(await inside()).toBe(true);
    }
    await page.keyboard.press('Escape');
    await popup.waitFor({ state: 'detached' });
    expect(await join.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByText(AD_BLOCK_TEXT).count()).toBe(0);
    expect(await page.getByText('Network connection lost').count()).toBe(0);
    expect(page.url()).toBe(site.url + '/');
  }

  async function blocked() {
    const { page, requested } = await openHome(false);
    const notice = page.getByRole('alert').filter({ hasText: 'ad blocker' });
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toBe(AD_BLOCK_TEXT);
    expect(requested.length).toBeGreaterThan(0);
    // Past the first popup's time and its whole countdown: no popup, no toast, still home.
    await page.waitForTimeout(14_000);
    expect(await page.getByRole('dialog', { name: 'Ads keep this project alive' }).count()).toBe(0);
    expect(await page.getByText('Network connection lost').count()).toBe(0);
    expect(page.url()).toBe(site.url + '/');
    await notice.waitFor();
  }

  // One after the other: run at once, the two pages' frames share the cores, and on a loaded
  // machine the served banners could miss the popup's 9 s check (the spec then sends the member home).
  test('served: popup after the check, focus kept, Escape once loaded; blocked: the notice and no popup', async () => {
    await served();
    await blocked();
    expect(site.errors).toEqual([]);
  });
});
