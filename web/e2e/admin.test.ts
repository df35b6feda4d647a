/**
 * Browser suite (vitest project "browser"), the admin dashboard against the real standalone: one
 * outcome at a time (a refused form takes the standing success away), the dashboard in Spanish
 * (form messages, the point history), a member's story stepped back to the card as it was, the
 * posts counted as cards on the site, the erase dialog named by the member, the certificate
 * page's way back; the chat highlighting special users only; the about page's social links from
 * the settings. axe-core at 1366×768 and 390×844.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { PRODUCT_NAME } from '@pass/events/kernel';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { ensureWebBuild, isUncovered, joinAsMember, PHONES, seriousAxeViolations, signInAsAdmin, type Site, startSite } from './site';
import { tinyPng } from './png';

const SUITE = 'browser: the admin dashboard, chat highlighting, about links (web/e2e/admin.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const DESKTOP = { width: 1366, height: 768 };
const PHONE = PHONES['phone-390'];
const INSTAGRAM = 'https://www.instagram.com/pass.project';
const fullname = 'Paula Poster';

/** A page of this suite: the shared machine is slow at times, so waits are longer than the default. */
async function slowPage(site: Site, options: Parameters<Site['newContext']>[0] = {}): Promise<Page> {
  const page = await site.newPage(await site.newContext({ acceptedCookie: true, ...options }));
  page.setDefaultTimeout(60_000);
  return page;
}

/**
 * In the page, so no test step's latency can outlast the success toast's own 2 s: as soon as
 * `success` shows, the views form is sent with -1; 600 ms later, whether `success` still shows
 * (the lowest opacity of its element and ancestors: 0 once gone or leaving).
 */
function successAfterRefusal(page: Page, success: string): Promise<{ refusedAfterMs: number; successOpacity: number }> {
  return page.evaluate(async (wanted) => {
    const toast = () => [...document.querySelectorAll('[role="status"]')].find((s) => s.textContent?.includes(wanted));
    while (!toast()) await new Promise((r) => setTimeout(r, 10));
    const shown = Date.now();
    const form = [...document.querySelectorAll('form')].find((f) => f.querySelector('h2')?.textContent === 'Vistas de anuncios')!;
    const input = form.querySelector('input')!;
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, '-1');
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const refused = Date.now();
    form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await new Promise((r) => setTimeout(r, 600));
    let opacity = toast() ? 1 : 0;
    for (let node: Element | null = toast() ?? null; node; node = node.parentElement) opacity = Math.min(opacity, Number(getComputedStyle(node).opacity));
    return { refusedAfterMs: refused - shown, successOpacity: opacity };
  }, success);
}

async function axeAt(page: Page, what: string, found: string[]): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(200);
    for (const v of await seriousAxeViolations(page)) found.push(`${what} ${size.width}×${size.height} ${v.impact} ${v.id}: ${v.help}`);
  }
  await page.setViewportSize(DESKTOP);
}

/** A member who bought 500 points and claimed 10 passes with a card: a special user. */
async function postCard(site: Site): Promise<Page> {
  const poster = await slowPage(site);
  await joinAsMember(poster, site.url);
  await poster.goto(site.url + '/content/points');
  await poster.getByRole('button', { name: 'Buy 500 points for $5' }).click();
  await poster.getByRole('dialog').getByRole('button', { name: 'Pay $5 (test mode, no real payment)' }).click();
  await poster.waitForURL('**/content/registered');
  await poster.goto(site.url + '/content/post');
  await poster.getByRole('heading', { name: `Get your ${PRODUCT_NAME}` }).waitFor();
  await poster.getByLabel('Full name').fill(fullname);
  await poster.getByLabel('Country').selectOption('Spain');
  await poster.getByLabel('Personal link').fill('https://example.com/paula');
  await poster.getByLabel('Image').setInputFiles({ name: 'paula.png', mimeType: 'image/png', buffer: tinyPng() });
  await poster.getByRole('textbox', { name: 'Message' }).fill('Hola a todos');
  await poster.getByRole('button', { name: `Get ${PRODUCT_NAME}!` }).click();
  await poster.waitForURL('**/content/amount');
  await poster.getByRole('spinbutton', { name: 'Passes' }).fill('10');
  await poster.getByRole('button', { name: 'Confirm' }).click();
  await poster.waitForURL(site.url + '/', { timeout: 20_000 });
  return poster;
}

/** The poster's card again with a new message: the post form, then one more pass (the amount form's least). */
async function updateCardMessage(poster: Page, site: Site, message: string): Promise<void> {
  await poster.goto(site.url + '/content/post');
  await poster.getByRole('heading', { name: 'Update your certificate' }).waitFor();
  await poster.getByLabel('Full name').fill(fullname);
  await poster.getByLabel('Country').selectOption('Spain');
  await poster.getByLabel('Personal link').fill('https://example.com/paula');
  await poster.getByLabel('Image').setInputFiles({ name: 'paula-2.png', mimeType: 'image/png', buffer: tinyPng() });
  await poster.getByRole('textbox', { name: 'Message' }).fill(message);
  await poster.getByRole('button', { name: 'Update Certificate!' }).click();
  await poster.waitForURL('**/content/amount');
  await poster.getByRole('spinbutton', { name: 'Passes' }).fill('1');
  await poster.getByRole('button', { name: 'Confirm' }).click();
  await poster.waitForURL(site.url + '/', { timeout: 20_000 });
}

async function sendChat(page: Page, site: Site, text: string): Promise<void> {
  await page.goto(site.url + '/');
  await page.getByRole('button', { name: /^Open chat/ }).click();
  const chat = page.getByRole('complementary', { name: 'Global chat' });
  await chat.getByRole('textbox', { name: 'Message' }).fill(text);
  await chat.getByRole('button', { name: 'Send' }).click();
  await chat.getByText(text).waitFor();
}

describe.skipIf(!hasChromium)('the admin dashboard, chat highlighting and about links on the standalone build', () => {
  let site: Site;
  let admin: Page;
  let poster: Page;
  let plain: Page;
  const axeFound: string[] = [];

  beforeAll(async () => {
    // Instagram configured, X and YouTube not.
    // A generous start: the machine running the suites is shared (a start took 76 s under load).
    site = await startSite(ensureWebBuild(), { SOCIAL_INSTAGRAM_URL: INSTAGRAM }, { startTimeoutMs: 180_000 });
    poster = await postCard(site);
    // A member without a pass (and so without a card).
    plain = await slowPage(site);
    await joinAsMember(plain, site.url);

    admin = await slowPage(site, { viewport: DESKTOP });
    await signInAsAdmin(admin, site.url);
  }, 360_000);

  afterAll(async () => {
    await site?.stop();
  });

  test('a refused "Establecer vistas" replaces the earlier success: one outcome at a time', async () => {
    const mainData = admin.locator('form').filter({ has: admin.getByRole('heading', { name: 'Editar datos principales' }) });
    await expect.poll(() => mainData.getByLabel('Pases disponibles').inputValue()).not.toBe('');
    const outcome = successAfterRefusal(admin, 'Datos principales actualizados');
    await mainData.getByRole('button', { name: 'Guardar' }).click();
    const { refusedAfterMs, successOpacity } = await outcome;
    const views = admin.locator('form').filter({ has: admin.getByRole('heading', { name: 'Vistas de anuncios' }) });
    await views.getByText('Las vistas no pueden ser negativas').waitFor();
    // Well within the success toast's own 2 s, it is gone (or leaving) beside the new error.
    expect(refusedAfterMs + 600).toBeLessThan(1_500);
    expect(successOpacity).toBe(0);
  });

  test('the main-data form speaks Spanish: plural agreement, a date that does not exist', async () => {
    const mainData = admin.locator('form').filter({ has: admin.getByRole('heading', { name: 'Editar datos principales' }) });
    await mainData.getByLabel('Pases disponibles').fill('-1');
    await mainData.getByLabel('Fecha de inicio (dd/mm/aaaa)').fill('31/02/2026');
    await mainData.getByRole('button', { name: 'Guardar' }).click();
    await mainData.getByText('Los pases disponibles no pueden ser negativos').waitFor();
    await mainData.getByText('La fecha no existe').waitFor();
    expect(await mainData.getByText('La fecha debe tener el formato dd/mm/aaaa').count()).toBe(0);
    await mainData.getByLabel('Fecha de inicio (dd/mm/aaaa)').fill('2026-02-01');
    await mainData.getByText('La fecha debe tener el formato dd/mm/aaaa').waitFor();
  });

  test('"Publicaciones" counts the cards on the site only, not a member without one', async () => {
    const heading = admin.getByRole('heading', { name: /^Publicaciones/ });
    await admin.locator('.admin-posts > li').filter({ hasText: fullname }).waitFor();
    await expect.poll(() => heading.textContent()).toBe('Publicaciones 1');
    expect(await admin.locator('.admin-posts > li').count()).toBe(1);
  });

  test('the point history is in Spanish', async () => {
    await admin.getByRole('button', { name: `Historial de ${fullname}` }).click();
    const history = admin.getByRole('dialog', { name: 'Historial de puntos' });
    await history.getByRole('table').waitFor();
    const events = (await history.locator('tbody tr td:nth-child(2)').allTextContents()).map((t) => t.trim());
    expect(events[0]).toMatch(/^Registrado como \S+@example\.com con 10 puntos$/);
    expect(events).toEqual(expect.arrayContaining([expect.stringMatching(/^Compró 500 puntos por 5 USD/), 'Obtuvo 10 pases', `Publicó una tarjeta como ${fullname} (Spain)`]));
    expect(events.join(' ')).not.toMatch(/Registered|Bought|Claimed|Posted/);
    await history.getByRole('button', { name: 'Cerrar historial' }).click();
  });

  test("the member's story: stepped back, the card as it was after posting, before the later edit", async () => {
    await updateCardMessage(poster, site, 'Adiós a todos');
    await admin.getByRole('button', { name: `Historial de ${fullname}` }).click();
    const history = admin.getByRole('dialog', { name: 'Historial de puntos' });
    await history.getByRole('table').waitFor();
    // It opens on the newest entry, shown with the table: the card as it is now.
    const newest = history.getByRole('region', { name: /^Estado tras el evento (\d+) de \1$/ });
    expect(await newest.count()).toBe(1);
    expect(await newest.textContent()).toContain('Adiós a todos');
    expect(await newest.getByRole('img', { name: `Imagen de la tarjeta de ${fullname}` }).count()).toBe(1);

    const posted = history.locator('tbody tr').filter({ hasText: `Publicó una tarjeta como ${fullname} (Spain)` });
    await posted.getByRole('button', { name: /^Ver el estado tras el evento \d+$/ }).click();
    const step = history.getByRole('region', { name: /^Estado tras el evento \d+ de \d+$/ });
    await expect.poll(() => step.textContent()).toContain('Hola a todos');
    const text = (await step.textContent())!;
    expect(text).toContain('Spain');
    expect(text).toContain('https://example.com/paula');
    expect(text).not.toContain('Adiós a todos');
    // The edit replaced that image, and its file with it.
    expect(text).toContain('Reemplazada después');
    await axeAt(admin, 'member story', axeFound);

    await step.getByRole('button', { name: 'Anterior' }).click();
    await expect.poll(() => step.textContent()).toContain('Sin tarjeta publicada.');
    await history.getByRole('button', { name: 'Cerrar historial' }).click();
  });

  test('the erase dialog is titled by the member as the list names them; cancelled, nothing goes', async () => {
    await admin.getByRole('button', { name: `Borrar miembro ${fullname}` }).click();
    const dialog = admin.getByRole('dialog', { name: `¿Borrar al miembro ${fullname}?` });
    await dialog.waitFor();
    await axeAt(admin, 'erase dialog', axeFound);
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await axeAt(admin, 'dashboard', axeFound);
  });

  test("the admin's certificate page links back to the dashboard, at both sizes", async () => {
    for (const size of [DESKTOP, PHONE]) {
      await admin.setViewportSize(size);
      await admin.getByRole('button', { name: `Certificado de ${fullname}` }).click();
      await admin.waitForURL('**/content/admin-certificate');
      const back = admin.getByRole('link', { name: 'Volver al panel' });
      await back.waitFor();
      expect(await isUncovered(admin, 'a.back-link')).toBe(true);
      const box = (await back.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      if (size === DESKTOP) await axeAt(admin, 'admin certificate', axeFound);
      await back.click();
      await admin.waitForURL('**/content/admin/dashboard');
      await admin.getByRole('heading', { name: 'Panel de administración' }).waitFor();
    }
    await admin.setViewportSize(DESKTOP);
  });

  test('chat: a special user (10 passes and more) is highlighted with the member icon, a member with no pass is plain', async () => {
    await sendChat(poster, site, 'Ten passes here');
    await sendChat(plain, site, 'No pass yet');
    const chat = plain.getByRole('complementary', { name: 'Global chat' });
    const special = chat.locator('li').filter({ hasText: 'Ten passes here' });
    const none = chat.locator('li').filter({ hasText: 'No pass yet' });
    await special.waitFor();
    expect(await special.getAttribute('class')).toBe('highlighted');
    expect(await special.getByRole('img', { name: 'Member' }).count()).toBe(1);
    expect(await none.getAttribute('class')).toBe('plain');
    expect(await none.getByRole('img', { name: 'Member' }).count()).toBe(0);
  });

  test('about: the configured social link is shown, the unset ones are not', async () => {
    const page = await slowPage(site, { viewport: PHONE });
    await page.goto(site.url + '/content/about');
    const about = page.getByRole('region', { name: `About ${PRODUCT_NAME}` });
    const instagram = about.getByRole('link', { name: 'Instagram' });
    await instagram.waitFor();
    expect(await instagram.getAttribute('href')).toBe(INSTAGRAM);
    expect(await about.getByRole('link', { name: /X \(Twitter\)|YouTube/ }).count()).toBe(0);
    await axeAt(page, 'about', axeFound);
  });

  test('axe-core: no serious or critical violation on the pages and dialogs above', () => {
    expect(axeFound).toEqual([]);
    expect(site.errors).toEqual([]);
  });
});
