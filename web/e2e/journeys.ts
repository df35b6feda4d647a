/**
 * Full journeys against a running server (standalone: http://localhost:3000), in Debian Chromium.
 * Usage: npm run e2e:journeys -w @pass/web -- http://localhost:3000
 * Each journey gets a fresh browser context; add new ones to JOURNEYS.
 */
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, VIEWPORTS } from './browser';
import { tinyPng } from './png';

export interface Journey {
  name: string;
  run(page: Page, baseUrl: string): Promise<void>;
}

const uniqueEmail = () => `e2e${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}@example.com`;

/** Accepts the cookie and closes the ads popup whenever it gets in the way (it allows closing once loaded). */
async function prepare(page: Page, baseUrl: string) {
  await page.addInitScript(() => window.localStorage.setItem('acceptedCookie', 'true'));
  await page.addLocatorHandler(page.getByRole('dialog', { name: 'Ads keep this project alive' }), async (dialog) => {
    await dialog.getByRole('button', { name: 'Close ads' }).click({ timeout: 15_000 });
  });
  await page.goto(baseUrl + '/');
}

async function register(page: Page, baseUrl: string, email = uniqueEmail(), password = 'pass1') {
  await page.goto(baseUrl + '/content/join');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Join' }).click();
  await page.waitForURL('**/content/check');
  return email;
}

export const JOURNEYS: Journey[] = [
  {
    name: 'home shows live figures',
    async run(page, baseUrl) {
      await prepare(page, baseUrl);
      await page.getByText('Get Your Free Pass Today!').waitFor();
      await page.getByText('Funds Raised', { exact: true }).waitFor();
      // The socket reports at least this viewer.
      await page.waitForFunction(() => Number(document.querySelector('.viewers span')?.textContent?.replace(/,/g, '')) >= 1);
    },
  },
  {
    name: 'register, then earn the free point after 30 s',
    async run(page, baseUrl) {
      await prepare(page, baseUrl);
      await register(page, baseUrl);
      await page.getByText('Your points: 10').waitFor();
      await page.getByText('A new point has been added').waitFor({ timeout: 40_000 });
      await page.waitForURL(baseUrl + '/', { timeout: 5_000 });
      await page.goto(baseUrl + '/content/participants');
      await page.getByText('Your points').locator('..').getByText('11').waitFor();
    },
  },
  {
    name: 'buy points in test mode, claim a pass, print the certificate',
    async run(page, baseUrl) {
      await prepare(page, baseUrl);
      const email = await register(page, baseUrl);
      await page.goto(baseUrl + '/content/points');
      await page.getByRole('button', { name: 'Buy 100 points for $1' }).click();
      await page.getByRole('button', { name: /test mode/ }).click();
      await page.getByText('Points successfully acquired!').waitFor();
      await page.waitForURL('**/content/registered');

      await page.goto(baseUrl + '/content/post');
      await page.getByLabel('Full name').fill('E2E Member');
      await page.getByLabel('Country').selectOption('Spain');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Personal link').fill('https://example.com/e2e');
      await page.getByLabel('Image').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: tinyPng() });
      await page.getByRole('textbox', { name: 'Message' }).fill('Hello from the journey');
      await page.getByRole('button', { name: 'Get Freedom Pass!' }).click();
      await page.waitForURL('**/content/amount');
      await page.getByRole('spinbutton', { name: 'Passes' }).fill('2');
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.waitForURL(baseUrl + '/');

      await page.goto(baseUrl + '/content/certificate');
      await page.getByText('E2E Member').waitFor();
      assert.ok(await page.getByRole('button', { name: 'Download Certificate' }).isVisible());
    },
  },
  {
    name: 'chat: a member sends a message and sees it',
    async run(page, baseUrl) {
      await prepare(page, baseUrl);
      await register(page, baseUrl);
      await page.goto(baseUrl + '/');
      await page.getByRole('button', { name: /Open chat/ }).click();
      const text = `hello ${Date.now()}`;
      await page.getByRole('textbox', { name: 'Message' }).fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('complementary', { name: 'Global chat' }).getByText(text).waitFor();
    },
  },
];

/** Runs the journeys against `baseUrl`; returns the failures. */
export async function runJourneys(baseUrl: string, only?: string[]): Promise<{ name: string; error: unknown }[]> {
  const browser: Browser = await launchBrowser();
  const failures: { name: string; error: unknown }[] = [];
  try {
    for (const journey of JOURNEYS.filter((j) => !only?.length || only.includes(j.name))) {
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const started = Date.now();
      try {
        await journey.run(page, baseUrl);
        process.stdout.write(`ok     ${journey.name} (${Date.now() - started} ms)\n`);
      } catch (error) {
        failures.push({ name: journey.name, error });
        process.stdout.write(`FAILED ${journey.name}: ${error instanceof Error ? error.message : String(error)}\n`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  return failures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const baseUrl = process.argv[2] ?? 'http://localhost:3000';
  const failures = await runJourneys(baseUrl.replace(/\/$/, ''), process.argv.slice(3));
  process.exitCode = failures.length ? 1 : 0;
}
