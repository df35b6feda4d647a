/**
 * Browser suite (vitest project "browser"), the account pages against the real standalone: a member
 * joins, opens "Your data" from the participants header, downloads the file (it holds the point
 * timeline), changes the password, signs out everywhere (a second browser context is signed out
 * too), asks for a reset link (the standalone without SMTP_URL writes the mail to
 * DATA_DIR/outbox/*.eml, read here), sets a new password from it, signs in with it and deletes the
 * account; the admin's erase dialog on a member's row. axe-core (no serious or critical
 * violation) on every new page and dialog at 1280×800 and 390×844.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { PRODUCT_NAME } from '@pass/events/kernel';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH, VIEWPORTS } from './browser';
import { ensureWebBuild, joinAsMember, mailText, seriousAxeViolations, signInAsAdmin, type Site, startSite } from './site';
import { tinyPng } from './png';

const SUITE = 'browser: Your data, password reset and erasure (web/e2e/my-data.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const SIZES = [VIEWPORTS.desktop, VIEWPORTS.mobile];

/** axe-core's serious and critical findings on the page as it is, at both sizes, one line each. */
async function axeAtBothSizes(page: Page, what: string): Promise<string[]> {
  const found: string[] = [];
  const before = page.viewportSize();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.waitForTimeout(200);
    for (const v of await seriousAxeViolations(page)) found.push(`${what} ${size.width}×${size.height} ${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
  }
  if (before) await page.setViewportSize(before);
  return found;
}

describe.skipIf(!hasChromium)('Your data, password reset and erasure on the standalone build', () => {
  let site: Site;
  let dataDir: string;
  let member: Page;
  let other: BrowserContext;
  let email: string;
  let resetLink = '';
  const axeFound: string[] = [];

  beforeAll(async () => {
    // The site's DATA_DIR is this test's, so the outbox can be read.
    dataDir = mkdtempSync(join(tmpdir(), 'pass-e2e-my-data-'));
    // A busy machine (2 cores shared) may take a while to build the web app and start the site.
    site = await startSite(ensureWebBuild(), { DATA_DIR: dataDir }, { startTimeoutMs: 240_000 });
    member = await site.newPage(await site.newContext());
    email = await joinAsMember(member, site.url);
  }, 600_000);

  afterAll(async () => {
    await site?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a member reaches "Your data" from the participants header (and the side menu); it passes axe', async () => {
    await member.goto(site.url + '/content/participants');
    await member.getByRole('region', { name: 'Participants' }).getByRole('link', { name: 'Your data' }).click();
    await member.waitForURL('**/content/my-data');
    await member.getByRole('heading', { level: 1, name: 'Your data' }).waitFor();
    expect(await member.getByText(`Signed in as ${email}.`).count()).toBe(1);
    // The side menu has the entry too (on a phone, where the menu button shows).
    await member.setViewportSize(VIEWPORTS.mobile);
    await member.getByRole('button', { name: 'Open menu' }).click();
    await member.getByRole('navigation', { name: 'Side menu' }).getByRole('link', { name: 'Your data' }).waitFor();
    await member.keyboard.press('Escape');
    await member.setViewportSize(VIEWPORTS.desktop);
    axeFound.push(...(await axeAtBothSizes(member, 'my-data')));
  });

  test('download: the JSON file holds the account and its point timeline', async () => {
    const [download] = await Promise.all([member.waitForEvent('download'), member.getByRole('button', { name: 'Download my data' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.json$/);
    const file = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { account: { email: string }; pointHistory: Array<{ description: string }> };
    expect(file.account.email).toBe(email);
    // The registration (and its 10 points) is the timeline's first entry.
    expect(file.pointHistory.length).toBeGreaterThanOrEqual(1);
  });

  test('change password: a wrong current password shows beside the field; the right one changes it', async () => {
    await member.getByLabel('Current password').fill('wrong1');
    await member.getByLabel('New password').fill('pass2');
    await member.getByRole('button', { name: 'Change password' }).click();
    const current = member.getByLabel('Current password');
    await expect.poll(() => current.evaluate((el) => el === document.activeElement && el.getAttribute('aria-invalid'))).toBe('true');
    await member.getByText('Your current password is not correct').waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'my-data with a field error')));
    await current.fill('pass1');
    await member.getByRole('button', { name: 'Change password' }).click();
    await member.getByText(/^Your password has been changed\./).waitFor();
  });

  test('sign out everywhere: this page lands on join, which says so, and a second browser is signed out too', async () => {
    other = await site.newContext();
    const second = await site.newPage(other);
    await second.goto(site.url + '/content/join');
    await second.getByLabel('Email').fill(email);
    await second.getByLabel('Password').fill('pass2');
    await second.getByRole('button', { name: 'Join' }).click();
    await second.waitForURL('**/content/check');

    await member.getByRole('button', { name: 'Sign out everywhere' }).click();
    await member.waitForURL('**/content/join');
    await member.getByRole('status').getByText('You have been signed out on every device.').waitFor();
    expect(await member.evaluate(() => localStorage.getItem('userId'))).toBeNull();

    // The second browser is told at once (web/e2e/account-access.test.ts); its session is gone
    // too: "Your data" sends it to join, which says why.
    await second.waitForURL('**/content/join');
    await second.goto(site.url + '/content/my-data');
    await second.waitForURL('**/content/join');
    await second.getByText(/Your data is kept with your account/).waitFor();
  });

  test('forgot password: join links the e-mail form; the answer is the same; the mail holds the link', async () => {
    await member.goto(site.url + '/content/join');
    axeFound.push(...(await axeAtBothSizes(member, 'join with its Forgot link')));
    await member.getByRole('link', { name: 'Forgot your password?' }).click();
    await member.waitForURL('**/content/reset-password');
    await member.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'reset-password (e-mail)')));
    await member.getByLabel('Email').fill(email);
    await member.getByRole('button', { name: 'Send me a link' }).click();
    const confirmation = member.getByRole('status');
    await confirmation.getByText(/If this email is registered/).waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'reset-password (sent)')));

    // The mail is written after the answer: wait for the file.
    const outbox = join(dataDir, 'outbox');
    await expect
      .poll(() => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')).length : 0), { timeout: 15_000 })
      .toBe(1);
    const [file] = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
    const text = mailText(readFileSync(join(outbox, file!), 'utf8'));
    expect(text).toContain(`To: ${email}`);
    const link = /https?:\/\/\S+\/content\/reset-password#token=[^\s"<>]+/.exec(text)?.[0];
    expect(link).toBeTruthy();
    // The mail names the site's public address; the test opens it on this process.
    const url = new URL(link!);
    resetLink = site.url + url.pathname + url.hash;
  });

  test('the link sets a new password once; the new password signs in', async () => {
    await member.goto(resetLink);
    await member.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor();
    // Read, then gone from the address bar.
    await expect.poll(() => member.url()).toBe(`${site.url}/content/reset-password`);
    await member.getByLabel('New password', { exact: true }).fill('pass3');
    await member.getByLabel('Repeat the new password').fill('pass4');
    await member.getByRole('button', { name: 'Set my new password' }).click();
    await member.getByText('The two passwords do not match').waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'reset-password (new password, error)')));
    await member.getByLabel('Repeat the new password').fill('pass3');
    await member.getByRole('button', { name: 'Set my new password' }).click();
    const done = member.getByRole('status');
    await done.getByText('Your new password is set.').waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'reset-password (done)')));

    // Used once: the same link says so on arrival, with a way to ask again.
    await member.goto(resetLink);
    const refused = member.getByRole('alert');
    await refused.getByText(/This reset link is not valid/).waitFor();
    await refused.getByRole('link', { name: 'Ask for a new link' }).waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'reset-password (used link)')));

    // The old password no longer signs in; the new one does.
    await member.goto(site.url + '/content/join');
    await member.getByLabel('Email').fill(email);
    await member.getByLabel('Password').fill('pass2');
    await member.getByRole('button', { name: 'Join' }).click();
    await member.locator('.form-error').waitFor();
    await member.getByLabel('Password').fill('pass3');
    await member.getByRole('button', { name: 'Join' }).click();
    await member.waitForURL('**/content/check');
  });

  test('delete account: the dialog names what is lost and asks for the password; it passes axe', async () => {
    await member.goto(site.url + '/content/my-data');
    await member.getByRole('button', { name: 'Delete my account' }).click();
    const dialog = member.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.waitFor();
    expect(await dialog.evaluate((d) => d.tagName === 'DIALOG' && (d as HTMLDialogElement).matches(':modal'))).toBe(true);
    const losses = await dialog.getByRole('listitem').allTextContents();
    expect(losses.join(' ')).toMatch(/points.*passes.*card and its image.*chat messages/s);
    await dialog.getByRole('button', { name: 'Delete my account for good' }).click();
    await dialog.getByText('Please enter your password').waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'my-data delete dialog')));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  test('delete account: a wrong password shows beside the field; the right one deletes it; on join, signed out', async () => {
    await member.goto(site.url + '/content/my-data');
    await member.getByRole('button', { name: 'Delete my account' }).click();
    const dialog = member.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByLabel('Your password').fill('wrong1');
    await dialog.getByRole('button', { name: 'Delete my account for good' }).click();
    await expect.poll(() => dialog.getByLabel('Your password').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByText('Your password is not correct').waitFor();
    axeFound.push(...(await axeAtBothSizes(member, 'my-data delete dialog, wrong password')));
    await dialog.getByLabel('Your password').fill('pass3');
    await dialog.getByRole('button', { name: 'Delete my account for good' }).click();
    await member.waitForURL('**/content/join');
    await member.getByRole('status').getByText('Your account has been deleted.').waitFor();
    expect(await member.evaluate(() => localStorage.getItem('userId'))).toBeNull();
    const status = await member.evaluate(async () => (await fetch('/api/my-data', { credentials: 'include' })).status);
    expect(status).toBe(401);
  });

  describe('the admin erases a member', () => {
    let admin: Page;
    const fullname = 'Erin Erase';

    beforeAll(async () => {
      // A member with a posted card (points bought in test mode, one pass claimed).
      const poster = await site.newPage(await site.newContext());
      await joinAsMember(poster, site.url);
      await poster.goto(site.url + '/content/points');
      await poster.getByRole('button', { name: 'Buy 100 points for $1' }).click();
      await poster.getByRole('dialog').getByRole('button', { name: 'Pay $1 (test mode, no real payment)' }).click();
      await poster.waitForURL('**/content/registered');
      await poster.goto(site.url + '/content/post');
      await poster.getByRole('heading', { name: `Get your ${PRODUCT_NAME}` }).waitFor();
      await poster.getByLabel('Full name').fill(fullname);
      await poster.getByLabel('Country').selectOption('Spain');
      await poster.getByLabel('Personal link').fill('https://example.com/erin');
      await poster.getByLabel('Image').setInputFiles({ name: 'erin.png', mimeType: 'image/png', buffer: tinyPng() });
      await poster.getByRole('textbox', { name: 'Message' }).fill('Hello all');
      await poster.getByRole('button', { name: `Get ${PRODUCT_NAME}!` }).click();
      await poster.waitForURL('**/content/amount');
      await poster.getByRole('spinbutton', { name: 'Passes' }).fill('1');
      await poster.getByRole('button', { name: 'Confirm' }).click();
      await poster.waitForURL(site.url + '/', { timeout: 20_000 });
      await poster.context().close();

      admin = await site.newPage(await site.newContext());
      await signInAsAdmin(admin, site.url);
    });

    test("the erase button on the member's row asks first, naming the member as the list does; the dialog passes axe", async () => {
      const erase = admin.getByRole('button', { name: `Borrar miembro ${fullname}` });
      await erase.waitFor({ timeout: 20_000 });
      await erase.click();
      const dialog = admin.getByRole('dialog', { name: `¿Borrar al miembro ${fullname}?` });
      await dialog.waitFor();
      axeFound.push(...(await axeAtBothSizes(admin, 'admin erase dialog')));
      await dialog.getByRole('button', { name: 'Cancelar' }).click();
      await dialog.waitFor({ state: 'detached' });
    });

    test('after the 204 the member leaves the posts', async () => {
      await admin.getByRole('button', { name: `Borrar miembro ${fullname}` }).click();
      await admin.getByRole('dialog').getByRole('button', { name: 'Borrar miembro' }).click();
      await admin.getByText('Miembro borrado').waitFor();
      await admin.getByRole('button', { name: `Borrar miembro ${fullname}` }).waitFor({ state: 'detached' });
    });
  });

  test('axe-core: no serious or critical violation on any of the pages and dialogs above', () => {
    expect(axeFound).toEqual([]);
    expect(site.errors).toEqual([]);
  });
});
