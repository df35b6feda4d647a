/**
 * Browser suite (vitest project "browser"), the progress page (docs/product.md §2
 * /content/progress) against the real standalone: a visitor on a phone (390×844, touch) and on a
 * desktop (1366×768) follows the floating bar's "Day N" to /content/progress and finds the summary
 * sentence, the chart (one labelled image) and the table with today's row; no floating element
 * covers a control and axe-core finds nothing serious or critical. Then a member claims passes in
 * another browser context and the visitor's row for today changes without a reload.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { floatingOverlaps } from './floating';
import { claimPasses, DEVICE_SIZES, ensureWebBuild, joinAsMember, seriousAxeViolations, serveAxe, startSite, type Site } from './site';

const SUITE = 'browser: the progress page (web/e2e/progress.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

type Device = keyof typeof DEVICE_SIZES;

/** Today (UTC) as the table writes it, dd/mm/yyyy. */
function todayText(): string {
  const [year, month, day] = new Date().toISOString().slice(0, 10).split('-');
  return `${day}/${month}/${year}`;
}

/** The figure in today's row under a column, as a number. */
async function todayFigure(page: Page, column: string): Promise<number> {
  const table = page.getByRole('table', { name: 'Progress by day' });
  const headers = (await table.getByRole('columnheader').allTextContents()).map((text) => text.trim());
  const cell = table.getByRole('row', { name: new RegExp(`^${todayText()}`) }).locator('th, td').nth(headers.indexOf(column));
  return Number((await cell.textContent())!.replace(/[$,]/g, ''));
}

describe.skipIf(!hasChromium)('the progress page on the standalone build', () => {
  let site: Site;

  beforeAll(async () => {
    // A busy machine (2 cores shared) may take a while to build the web app and start the site.
    site = await startSite(ensureWebBuild(), {}, { startTimeoutMs: 240_000 });
  }, 600_000);

  afterAll(async () => {
    await site?.stop();
  });

  /** A visitor on the device, at home, who follows the floating bar's "Day N". */
  async function visitorOnProgress(device: Device): Promise<Page> {
    const context = await site.browser.newContext({ ...DEVICE_SIZES[device], timezoneId: 'UTC', locale: 'en-US' });
    await serveAxe(context);
    const page = await site.newPage(context);
    await page.goto(site.url + '/');
    await page.getByRole('toolbar', { name: 'Live' }).getByRole('link', { name: /^Day \d+/ }).click();
    await page.waitForURL(site.url + '/content/progress');
    await page.getByRole('heading', { level: 1, name: 'Progress' }).waitFor();
    return page;
  }

  test.each(Object.keys(DEVICE_SIZES) as Device[])('%s: "Day N" leads to the summary, the chart and today\'s row; nothing covers it', async (device) => {
    const page = await visitorOnProgress(device);
    const day = (await page.getByRole('toolbar', { name: 'Live' }).getByRole('link', { name: /^Day \d+/ }).textContent())!.trim();
    await expect.poll(() => page.getByText(/ passes? taken, (under )?[\d.]+% of the goal of 1,000,000\. /).first().textContent())
      .toMatch(new RegExp(`^${day} of 365: \\d[\\d,]* passes? taken, (under )?[\\d.]+% of the goal of 1,000,000\\. The pace needs [\\d,]+ by the end of today\\.$`));
    await page.getByRole('table', { name: 'Progress by day' }).getByRole('row', { name: new RegExp(`^${todayText()}`) }).waitFor();
    // uPlot drew (it loads with the chart, under the site's Content-Security-Policy).
    await page.getByRole('img', { name: /^Chart of passes taken per day/ }).locator('canvas').waitFor();
    expect((await floatingOverlaps(page)).map((o) => o.text)).toEqual([]);
    const axe = (await seriousAxeViolations(page)).map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
    expect(axe).toEqual([]);
    expect(site.errors).toEqual([]);
    await page.context().close();
  });

  test("today's row follows a member's claim live, without a reload", async () => {
    const page = await visitorOnProgress('desktop');
    await page.getByRole('row', { name: new RegExp(`^${todayText()}`) }).waitFor();
    // A reload would lose this mark.
    await page.evaluate(() => Object.assign(window, { progressTestMark: true }));
    const passesBefore = await todayFigure(page, 'Passes taken');
    const membersBefore = await todayFigure(page, 'Members');

    const member = await site.newPage(await site.newContext());
    await joinAsMember(member, site.url);
    await claimPasses(member, site.url, { fullname: 'Petra Progress', message: 'Counting with you', passes: 3 });

    await expect.poll(() => todayFigure(page, 'Passes taken'), { timeout: 15_000 }).toBe(passesBefore + 3);
    expect(await todayFigure(page, 'Members')).toBe(membersBefore + 1);
    expect(await todayFigure(page, 'Points bought')).toBeGreaterThanOrEqual(100);
    expect(await page.evaluate(() => 'progressTestMark' in window)).toBe(true);
    expect(page.url()).toBe(site.url + '/content/progress');
  });
});
