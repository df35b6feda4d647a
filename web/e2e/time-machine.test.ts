/**
 * Browser suite (vitest project "browser"), the dashboard's "Máquina del tiempo" against the real
 * standalone, on a desktop (1366×768): the admin notes where the event log stands (Proyecciones),
 * a member joins and claims passes, then the admin replays that earlier position and sees the
 * figures and the ranking as they were (the later member absent), compares it with now (one
 * member joined, the passes taken since, the newcomer among the movers), and axe-core finds
 * nothing serious or critical with the replay and the comparison on screen. Back on the dashboard
 * later, the section's "Progreso hacia la meta" draws the chart of passes per day against the
 * goal's pace and sums up today with every pass claimed; axe-core finds nothing there either.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH } from './browser';
import { claimPasses, DEVICE_SIZES, ensureWebBuild, joinAsMember, seriousAxeViolations, signInAsAdmin, type Site, startSite } from './site';

const SUITE = 'browser: the time machine on the admin dashboard (web/e2e/time-machine.test.ts)';
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

const EARLIER = { fullname: 'Ana Antes', message: 'Estuve antes', passes: 3 };
const LATER = { fullname: 'Bea Después', message: 'Llegué después', passes: 5 };

/** A page of its own browser context; the shared machine is slow at times, so waits are long. */
async function slowPage(site: Site): Promise<Page> {
  const page = await site.newPage(await site.newContext({ acceptedCookie: true, viewport: DEVICE_SIZES.desktop.viewport }));
  page.setDefaultTimeout(60_000);
  return page;
}

async function memberClaims(site: Site, card: typeof EARLIER): Promise<void> {
  const member = await slowPage(site);
  await joinAsMember(member, site.url);
  await claimPasses(member, site.url, card);
  await member.close();
}

/** What the definition list says for a term. */
const fact = (list: Locator, term: string) => list.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]').textContent();

/** How many pixels of the canvas something is drawn on: more than none once uPlot drew the chart. */
const paintedPixels = (canvas: Locator) => canvas.evaluate((node: HTMLCanvasElement) => {
  if (node.width === 0 || node.height === 0) return 0;
  const { data } = node.getContext('2d')!.getImageData(0, 0, node.width, node.height);
  let painted = 0;
  for (let alpha = 3; alpha < data.length; alpha += 4) if (data[alpha]! > 0) painted++;
  return painted;
});

/** Where the read models stand, as Proyecciones shows it once they hold every event ("Actualizar" until no lag). */
async function caughtUpPosition(admin: Page): Promise<string> {
  const card = admin.locator('.card').filter({ has: admin.getByRole('heading', { name: 'Proyecciones' }) });
  await expect.poll(async () => {
    await card.getByRole('button', { name: 'Actualizar' }).click();
    return fact(card, 'Retraso');
  }, { timeout: 30_000 }).toMatch(/^0 eventos/);
  const shown = (await fact(card, 'Posición'))!;
  const [position, head] = shown.split(' / ');
  expect(position).toBe(head);
  return position!;
}

describe.skipIf(!hasChromium)('the time machine on the standalone build', () => {
  let site: Site;
  let admin: Page;

  beforeAll(async () => {
    site = await startSite(ensureWebBuild(), {}, { startTimeoutMs: 180_000 });
    await memberClaims(site, EARLIER);
    admin = await slowPage(site);
    await signInAsAdmin(admin, site.url);
  }, 360_000);

  afterAll(async () => {
    await site?.stop();
  });

  test('the admin replays an earlier moment, sees it as it was, compares it with now', async () => {
    const position = await caughtUpPosition(admin);
    await memberClaims(site, LATER);
    await caughtUpPosition(admin);

    const machine = admin.getByRole('region', { name: 'Máquina del tiempo' });
    await machine.getByRole('radio', { name: 'Posición del registro' }).check();
    await machine.getByLabel('Posición', { exact: true }).fill(position);
    await machine.getByRole('button', { name: 'Reconstruir' }).click();

    // The site as it was: the earlier member's passes only, and the earlier member alone ranked.
    // Once ready, a replay is named by the recorded time of the last event it replayed.
    await machine.getByRole('heading', { name: /^Así estaba el \d\d\/\d\d\/\d{4} \d\d:\d\d$/ }).waitFor();
    const figures = machine.getByLabel('Cifras en ese momento');
    expect(await fact(figures, 'Pases tomados')).toBe(String(EARLIER.passes));
    const ranking = machine.getByRole('table', { name: 'Clasificación en ese momento' });
    const names = (await ranking.locator('tbody tr td:nth-child(2)').allTextContents()).map((t) => t.trim());
    expect(names).toEqual([EARLIER.fullname]);

    // Compared with now: one member joined, the passes claimed since, the newcomer now first.
    const compare = machine.getByRole('form', { name: 'Comparar dos momentos' });
    expect(await compare.getByLabel('Antes').inputValue()).not.toBe('now');
    expect(await compare.getByLabel('Después').inputValue()).toBe('now');
    await compare.getByRole('button', { name: 'Comparar' }).click();
    const changes = machine.getByLabel('Cambios entre los dos momentos');
    await changes.waitFor();
    expect(await fact(changes, 'Miembros nuevos')).toBe(`1: ${LATER.fullname}`);
    expect(await fact(changes, 'Miembros que se fueron')).toBe('0');
    expect(await fact(changes, 'Miembros')).toMatch(/ \(\+1\)$/);
    const passes = EARLIER.passes + LATER.passes;
    expect(await fact(changes, 'Pases')).toBe(`${EARLIER.passes} → ${passes} (+${LATER.passes})`);
    const movers = machine.getByRole('table', { name: 'Los que más se movieron en la clasificación' });
    const newcomer = movers.getByRole('row').filter({ hasText: LATER.fullname });
    expect((await newcomer.getByRole('cell').allTextContents()).map((t) => t.trim())).toEqual([LATER.fullname, '—', '1', '0', String(LATER.passes)]);

    expect(await seriousAxeViolations(admin)).toEqual([]);
    expect(site.errors).toEqual([]);
  }, 240_000);

  // After the first test: both members' passes are counted and the read models hold them.
  test('the admin sees the progress toward the goal: the chart drawn and today summed up', async () => {
    await admin.reload();
    const block = admin.getByRole('region', { name: 'Máquina del tiempo' }).getByRole('region', { name: 'Progreso hacia la meta' });
    const today = block.getByLabel('Progreso de hoy');
    await today.waitFor();
    expect(await fact(today, 'Pases tomados')).toMatch(new RegExp(`^${EARLIER.passes + LATER.passes} de [\\d,]+$`));
    expect(await fact(today, 'De la meta')).toMatch(/^(menos del )?\d+(\.\d)?%$/);
    expect(await fact(today, 'El ritmo pide hoy')).toMatch(/^([\d,]+|—)$/);

    const canvas = block.getByRole('img', { name: /^Gráfico de pases tomados por día frente al ritmo que pide la meta/ }).locator('canvas');
    await canvas.waitFor();
    await expect.poll(() => paintedPixels(canvas), { timeout: 30_000 }).toBeGreaterThan(0);

    expect(await seriousAxeViolations(admin)).toEqual([]);
    expect(site.errors).toEqual([]);
  }, 120_000);
});
