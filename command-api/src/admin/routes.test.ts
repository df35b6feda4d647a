import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SESSION_COOKIE, streams } from '@pass/events';
import { smallPng } from '../test-support/images';
import { ADMIN, startHarness, type Browser, type Harness } from '../test-support/harness';
import { adminIdFor } from './accounts';
import type { SimulatedPaymentProvider } from '../payments/provider/simulated-provider';

let h: Harness;
let admin: Browser;
let memberB: Browser;
let memberId: string;
let otherB: Browser;
let otherId: string;
let n = 0;

async function join() {
  const b = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: `m${++n}@example.com`, password: 'pass1' });
  return { b, id: res.body.id as string, email: res.body.email as string };
}

async function postCertificate(b: Browser, email: string) {
  const form = new FormData();
  // A first post claims at least one pass: buy the points for it.
  const id = (await h.api.sessions.verify(`pass_session=${b.cookies.get('pass_session')}`)).user!.id;
  const provider = h.api.payments as SimulatedPaymentProvider;
  const { orderId } = await provider.createOrder(id, 1);
  await provider.captureOrder(orderId);
  await b.request('POST', '/api/buy-points', { orderId });
  for (const [k, v] of Object.entries({ fullname: 'Poster', country: 'Chile', email, link: 'https://poster.example.com', message: 'Greetings', passes: '1' })) form.set(k, v);
  form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'p.png');
  return b.form('/api/register-special-user', form);
}

beforeAll(async () => {
  h = await startHarness();
  admin = h.browser();
  ({ b: memberB, id: memberId } = await join());
  ({ b: otherB, id: otherId } = await join());
});
afterAll(async () => {
  await h?.close();
});

describe('POST /api/admin-login', () => {
  it('logs the bootstrapped admin in with an admin session', async () => {
    const res = await admin.request('POST', '/api/admin-login', ADMIN);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: adminIdFor(ADMIN.email), email: ADMIN.email, authorized: true });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${ADMIN_SESSION_COOKIE}=`))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it('refuses wrong credentials with one message, for an unknown email too', async () => {
    for (const body of [{ ...ADMIN, password: 'wrong-password' }, { email: 'nobody@example.com', password: 'whatever1' }]) {
      const res = await h.browser().request('POST', '/api/admin-login', body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Email o contraseña incorrectos' });
    }
  });

  it.each([
    [{ email: '', password: 'abcdefgh' }, 'email', 'Ingrese su email'],
    [{ email: 'a@b.co', password: 'abcdefgh' }, 'email', 'Ingrese un email valido'],
    [{ email: `${'a'.repeat(45)}@example.com`, password: 'abcdefgh' }, 'email', 'El email ingresado es demasiado largo. Ingrese un email valido'],
    [{ email: 'admin@example.com', password: '' }, 'password', 'Ingrese su contraseña'],
    [{ email: 'admin@example.com', password: 'short' }, 'password', 'Ingrese una contraseña valida'],
    [{ email: 'admin@example.com', password: 'x'.repeat(31) }, 'password', 'La contraseña ingresada es demasiado larga'],
  ])('refuses %j with the spec message', async (body, field, message) => {
    const res = await h.browser().request('POST', '/api/admin-login', body);
    expect(res.status).toBe(400);
    expect(res.body.fields[field]).toBe(message);
  });
});

describe('admin commands', () => {
  it('PUT /api/main-data sets the supply and the site data', async () => {
    const res = await admin.request('PUT', '/api/main-data', { available: 500, cpm: 2.5, donations: 12, startDate: '15/3/2026' });
    expect(res.status).toBe(200);
    const pool = await h.store.readStream(streams.passesPool);
    expect(pool.at(-1)).toMatchObject({ type: 'PassSupplySet', data: { available: 500 } });
    const site = await h.store.readStream(streams.site);
    expect(site.at(-1)).toMatchObject({ type: 'MainDataEdited', data: { cpm: 2.5, donations: 12, startDate: '15/3/2026' } });
    expect(site.at(-1)?.metadata).toMatchObject({ actor: { type: 'admin', id: adminIdFor(ADMIN.email) } });
  });

  it.each([
    [{ available: -1, cpm: 1, donations: 0, startDate: '' }, 'available', 'Los pases disponibles no pueden ser negativos'],
    [{ available: 1.5, cpm: 1, donations: 0, startDate: '' }, 'available', 'Los pases disponibles deben ser un número entero'],
    [{ available: 1, cpm: -2, donations: 0, startDate: '' }, 'cpm', 'El CPM no puede ser negativo'],
    [{ available: 1, cpm: 1, donations: -3, startDate: '' }, 'donations', 'Las donaciones no pueden ser negativas'],
    [{ available: 1, cpm: 1, donations: 0, startDate: '2026-01-01' }, 'startDate', 'La fecha debe tener el formato dd/mm/aaaa'],
    [{ available: 1, cpm: 1, donations: 0, startDate: '31/02/2026' }, 'startDate', 'La fecha no existe'],
  ])('PUT /api/main-data refuses %j', async (body, field, message) => {
    const before = (await h.store.readAll()).length;
    const res = await admin.request('PUT', '/api/main-data', body);
    expect(res.status).toBe(400);
    expect(res.body.fields[field]).toBe(message);
    expect((await h.store.readAll()).length).toBe(before);
  });

  it('PUT /api/reset-ads-views records the views', async () => {
    expect((await admin.request('PUT', '/api/reset-ads-views', { views: 0 })).status).toBe(200);
    expect((await h.store.readStream(streams.site)).at(-1)).toMatchObject({ type: 'AdViewsReset', data: { views: 0 } });
    const bad = await admin.request('PUT', '/api/reset-ads-views', { views: -3 });
    expect(bad.status).toBe(400);
    expect(bad.body.fields.views).toBe('Las vistas no pueden ser negativas');
  });

  it('DELETE /api/member-post/:id removes a post; 404 when there is none', async () => {
    const poster = await join();
    expect((await postCertificate(poster.b, poster.email)).status).toBe(200);
    expect((await admin.request('DELETE', `/api/member-post/${poster.id}`)).status).toBe(204);
    expect((await poster.b.request('GET', `/api/verify-access/${poster.id}`)).body).toMatchObject({ fullname: '', image: null });
    expect((await admin.request('DELETE', `/api/member-post/${poster.id}`)).status).toBe(404);
  });

  it('DELETE /api/delete-chat-messages clears the chat', async () => {
    expect((await admin.request('DELETE', '/api/delete-chat-messages')).status).toBe(204);
    expect((await h.store.readStream(streams.site)).at(-1)).toMatchObject({ type: 'ChatCleared' });
  });

  it('POST /api/verify-admin-access/:adminId is authorized only with that admin session', async () => {
    const id = adminIdFor(ADMIN.email);
    expect((await admin.request('POST', `/api/verify-admin-access/${id}`)).body).toEqual({ id, email: ADMIN.email, authorized: true });
    expect((await memberB.request('POST', `/api/verify-admin-access/${id}`)).body).toMatchObject({ authorized: false });
    expect((await h.browser().request('POST', `/api/verify-admin-access/${id}`)).body).toMatchObject({ authorized: false });
    expect((await admin.request('POST', '/api/verify-admin-access/someone-else')).body).toMatchObject({ authorized: false });
  });
});

type Role = 'guest' | 'member' | 'another member' | 'admin';

describe('authorization matrix', () => {
  // [method, path (with :self = the member's id), body, expected status per role]
  const routes: [string, string, unknown, Record<Role, number>][] = [
    ['GET', '/api/verify-access/:self', undefined, { guest: 401, member: 200, 'another member': 403, admin: 401 }],
    ['POST', '/api/free-point/ticket', undefined, { guest: 401, member: 200, 'another member': 200, admin: 401 }],
    // Past the session check, a point needs a countdown's ticket.
    ['POST', '/api/free-point', undefined, { guest: 401, member: 400, 'another member': 400, admin: 401 }],
    ['POST', '/api/chat-messages', { message: 'hola' }, { guest: 401, member: 201, 'another member': 201, admin: 401 }],
    ['POST', '/api/buy-points', { orderId: 'SIM-unknown' }, { guest: 401, member: 402, 'another member': 402, admin: 401 }],
    ['POST', '/api/register-special-user', undefined, { guest: 401, member: 400, 'another member': 400, admin: 401 }],
    ['DELETE', '/api/member-post/:self', undefined, { guest: 401, member: 403, 'another member': 403, admin: 404 }],
    ['DELETE', '/api/delete-chat-messages', undefined, { guest: 401, member: 403, 'another member': 403, admin: 204 }],
    ['PUT', '/api/main-data', { available: 10, cpm: 1, donations: 1, startDate: '' }, { guest: 401, member: 403, 'another member': 403, admin: 200 }],
    ['PUT', '/api/reset-ads-views', { views: 3 }, { guest: 401, member: 403, 'another member': 403, admin: 200 }],
    // A member's data and access: only ever the session's own member, never an id in the request.
    ['GET', '/api/my-data', undefined, { guest: 401, member: 200, 'another member': 200, admin: 401 }],
    ['POST', '/api/change-password', { currentPassword: 'not-mine', newPassword: 'abcd' }, { guest: 401, member: 400, 'another member': 400, admin: 401 }],
    // Anyone may ask (the answer never says whether the address is registered); a link is the credential.
    ['POST', '/api/password-reset', { email: 'm1@example.com' }, { guest: 202, member: 202, 'another member': 202, admin: 202 }],
    ['POST', '/api/password-reset/confirm', { token: 'u1.forged', password: 'abcd' }, { guest: 400, member: 400, 'another member': 400, admin: 400 }],
    // Erasure: a member erases only their own account, by password; an admin any member by id
    // (here one that does not exist, so the rows below keep their members).
    ['DELETE', '/api/my-account', { password: 'not-mine' }, { guest: 401, member: 400, 'another member': 400, admin: 401 }],
    ['DELETE', '/api/admin/members/no-such-member', undefined, { guest: 401, member: 403, 'another member': 403, admin: 404 }],
    // Last: it ends the sessions the rows above use.
    ['POST', '/api/logout-everywhere', undefined, { guest: 401, member: 204, 'another member': 204, admin: 401 }],
  ];
  const roles: Role[] = ['guest', 'member', 'another member', 'admin'];
  const cases = routes.flatMap(([method, path, body, expected]) => roles.map((role) => [method, path, role, body, expected[role]] as const));

  it.each(cases)('%s %s as %s', async (method, path, role, body, status) => {
    const browser = { guest: h.browser(), member: memberB, 'another member': otherB, admin }[role];
    if (role === 'admin' && !admin.cookies.has(ADMIN_SESSION_COOKIE)) await admin.request('POST', '/api/admin-login', ADMIN);
    const res =
      path === '/api/register-special-user' && role !== 'guest' && role !== 'admin'
        ? await browser.form(path, new FormData())
        : await browser.request(method, path.replace(':self', memberId), body);
    expect(res.status).toBe(status);
    if (status >= 400) expect(res.body.error).toEqual(expect.any(String));
    void otherId;
  });

  it('admin logout revokes the admin session', async () => {
    const b = h.browser();
    await b.request('POST', '/api/admin-login', ADMIN);
    const cookie = b.cookies.get(ADMIN_SESSION_COOKIE)!;
    expect((await b.request('POST', '/api/admin-logout')).status).toBe(204);
    const replay = h.browser();
    replay.cookies.set(ADMIN_SESSION_COOKIE, cookie);
    expect((await replay.request('PUT', '/api/reset-ads-views', { views: 1 })).status).toBe(401);
  });
});
