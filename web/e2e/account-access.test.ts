/**
 * Browser suite (vitest project "browser"), a member's access against the real standalone, as a
 * member notices it: a used or expired reset link says so on arrival (no form to fill first), an
 * empty new password is named as such, and signing out everywhere or deleting the account is
 * confirmed on the page the member lands on while their other signed-in browser switches to the
 * guest state and says why, without a reload. At a touch phone (390×844) and a desktop (1366×768);
 * axe-core (no serious or critical violation) on the new states.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ACCOUNT_ACCESS_MESSAGES, PASSWORD_RESET_TTL_MS } from '@pass/events/kernel';
import { recordSkippedSuite } from '@pass/events/test-support';
import { ResetLinks } from '../../command-api/src/account-access/reset-links';
import { CHROMIUM_PATH } from './browser';
import { ensureWebBuild, joinAsMember, mailText, seriousAxeViolations, serveAxe, type Site, startSite } from './site';

const SUITE = 'browser: a member\'s access (web/e2e/account-access.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const DESKTOP = { viewport: { width: 1366, height: 768 } };
const DEVICES = { phone: PHONE, desktop: DESKTOP } as const;
/** The site's key, so this test can sign a link made over an hour ago (a genuinely expired one). */
const SESSION_SECRET = 'account-access-e2e-secret-0123456789abcdef';
/** Within this long a member's other browser learns that its session ended. */
const NOTICE_MS = 5_000;

describe.skipIf(!hasChromium)("A member's access on the standalone build", () => {
  let site: Site;
  let dataDir: string;
  const seenMails = new Set<string>();

  beforeAll(async () => {
    // The site's DATA_DIR is this test's, so the outbox can be read.
    dataDir = mkdtempSync(join(tmpdir(), 'pass-e2e-access-'));
    // A busy machine (2 cores shared) may take a while to build the web app and start the site.
    site = await startSite(ensureWebBuild(), { DATA_DIR: dataDir, SESSION_SECRET }, { startTimeoutMs: 240_000 });
  }, 600_000);

  afterAll(async () => {
    await site?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function device(kind: keyof typeof DEVICES): Promise<Page> {
    const context: BrowserContext = await site.browser.newContext({ ...DEVICES[kind], timezoneId: 'UTC', locale: 'en-US' });
    await serveAxe(context);
    return site.newPage(context);
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(site.url + '/content/join');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Join' }).click();
    await page.waitForURL('**/content/check');
  }

  /** Asks for a link for `email` and returns it from the newest mail in the outbox, on this site's address. */
  async function resetLinkFor(page: Page, email: string): Promise<string> {
    const status = await page.evaluate(async (address) => (await fetch('/api/password-reset', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: address }) })).status, email);
    expect(status).toBe(202);
    const outbox = join(dataDir, 'outbox');
    const fresh = () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml') && !seenMails.has(f)) : []);
    await expect.poll(() => fresh().length, { timeout: 15_000 }).toBe(1);
    const [file] = fresh();
    seenMails.add(file!);
    const link = /https?:\/\/\S+\/content\/reset-password#token=[^\s"<>]+/.exec(mailText(readFileSync(join(outbox, file!), 'utf8')))?.[0];
    expect(link).toBeTruthy();
    const url = new URL(link!);
    return site.url + url.pathname + url.hash;
  }

  async function expectDeadLinkOnArrival(page: Page, link: string): Promise<void> {
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor();
    const said = page.getByRole('alert');
    await said.getByText(ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid).waitFor();
    await said.getByRole('link', { name: 'Ask for a new link' }).waitFor();
    // Nothing to fill in for a dead link.
    expect(await page.getByLabel('New password', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Set my new password' }).count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  test.each(Object.keys(DEVICES) as (keyof typeof DEVICES)[])('%s: a used reset link says so on arrival, with the way to a new one', async (kind) => {
    const page = await device(kind);
    const email = await joinAsMember(page, site.url);
    const link = await resetLinkFor(page, email);
    // A fresh link: its form, and opening it (the check) did not use it.
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('pass7');
    await page.getByLabel('Repeat the new password').fill('pass7');
    await page.getByRole('button', { name: 'Set my new password' }).click();
    await page.getByRole('status').getByText('Your new password is set.').waitFor();
    await expectDeadLinkOnArrival(page, link);
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
    await page.context().close();
  });

  test.each(Object.keys(DEVICES) as (keyof typeof DEVICES)[])('%s: an expired reset link says so on arrival', async (kind) => {
    const page = await device(kind);
    await joinAsMember(page, site.url);
    const userId = await page.evaluate(() => localStorage.getItem('userId'));
    expect(userId).toBeTruthy();
    // Signed with the site's key, made just over an hour ago: as the mail would have carried it.
    const token = new ResetLinks(SESSION_SECRET).make(userId!, new Date(Date.now() - PASSWORD_RESET_TTL_MS - 60_000));
    await expectDeadLinkOnArrival(page, `${site.url}/content/reset-password#token=${token}`);
    await page.context().close();
  });

  test('an empty new password is named as such, on the reset link and on "Your data"', async () => {
    const page = await device('phone');
    const email = await joinAsMember(page, site.url);
    await page.goto(await resetLinkFor(page, email));
    await page.getByRole('button', { name: 'Set my new password' }).click();
    await page.getByText(ACCOUNT_ACCESS_MESSAGES.newPasswordRequired).waitFor();
    expect(await page.getByText('Please enter your password', { exact: true }).count()).toBe(0);

    await page.goto(site.url + '/content/my-data');
    await page.getByLabel('Current password').fill('pass1');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(ACCOUNT_ACCESS_MESSAGES.newPasswordRequired).waitFor();
    expect(await page.getByText('Please enter your password', { exact: true }).count()).toBe(0);
    await page.context().close();
  });
  /**
   * One member signed in on a desktop (which ends the sessions) and on a touch phone left on the
   * participants page (its "Logout" showing); the phone is marked so a reload would show.
   */
  async function memberOnTwoDevices(): Promise<{ desktop: Page; phone: Page }> {
    const desktop = await device('desktop');
    const email = await joinAsMember(desktop, site.url);
    const phone = await device('phone');
    await signIn(phone, email, 'pass1');
    await phone.goto(site.url + '/content/participants');
    await phone.getByRole('button', { name: 'Logout' }).waitFor();
    await phone.evaluate(() => Object.assign(window, { notReloaded: true }));
    // The phone's socket has joined its member's room (its handshake is read once it connects).
    await phone.waitForTimeout(1_000);
    return { desktop, phone };
  }

  /** The phone, without a reload: a guest on the join page, which says why; no "Logout" left. */
  async function expectToldWithoutReload(phone: Page, why: string): Promise<void> {
    await phone.waitForURL('**/content/join', { timeout: NOTICE_MS });
    await phone.getByRole('status').getByText(why).waitFor({ timeout: NOTICE_MS });
    expect(await phone.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await phone.getByRole('button', { name: 'Logout' }).count()).toBe(0);
    expect(await phone.evaluate(() => localStorage.getItem('userId'))).toBeNull();
    expect(await seriousAxeViolations(phone)).toEqual([]);
  }

  test('sign out everywhere: this device confirms it on the page it lands on; the other switches to a guest and says why, without a reload', async () => {
    const { desktop, phone } = await memberOnTwoDevices();
    await desktop.goto(site.url + '/content/my-data');
    await desktop.getByRole('button', { name: 'Sign out everywhere' }).click();
    await desktop.waitForURL('**/content/join');
    await desktop.getByRole('status').getByText('You have been signed out on every device.').waitFor();
    // Not the guest's reason for "Your data".
    expect(await desktop.getByText(/Your data is kept with your account/).count()).toBe(0);
    expect(await seriousAxeViolations(desktop)).toEqual([]);
    await expectToldWithoutReload(phone, 'You were signed out: your account was signed out on every device. Sign in again to continue.');
    await desktop.context().close();
    await phone.context().close();
  });

  test('delete my account: this device confirms it on the page it lands on; the other switches to a guest and says why, without a reload', async () => {
    const { desktop, phone } = await memberOnTwoDevices();
    await desktop.goto(site.url + '/content/my-data');
    await desktop.getByRole('button', { name: 'Delete my account' }).click();
    const dialog = desktop.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByLabel('Your password').fill('pass1');
    await dialog.getByRole('button', { name: 'Delete my account for good' }).click();
    await desktop.waitForURL('**/content/join');
    await desktop.getByRole('status').getByText('Your account has been deleted.').waitFor();
    expect(await desktop.getByText(/Your data is kept with your account/).count()).toBe(0);
    expect(await seriousAxeViolations(desktop)).toEqual([]);
    await expectToldWithoutReload(phone, 'You were signed out: your account has been deleted.');
    await desktop.context().close();
    await phone.context().close();
  });
});
