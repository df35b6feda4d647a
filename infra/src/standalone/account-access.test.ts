import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ACCESS_MESSAGES, type MyDataExport } from '@pass/events';
import { dropRedisPrefix, eventually, requireService, testRedisUrl } from '@pass/events/test-support';
import { Browser } from '../test-support/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/** Members' data and access on the real server: recovery by a mailed link (through a real SMTP server, and the outbox), sign-out, export. */

const SITE = 'https://pass.example';

/** The body of a raw RFC 5322 message, quoted-printable undone (nodemailer wraps long lines). */
function bodyOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  if (!/Content-Transfer-Encoding: quoted-printable/i.test(raw)) return body;
  return body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
const tokenIn = (raw: string) => {
  const link = new RegExp(`${SITE.replace(/\./g, '\\.')}/content/reset-password#token=(\\S+)`).exec(bodyOf(raw));
  expect(link, 'the mail holds the reset link').not.toBeNull();
  return decodeURIComponent(link![1]!);
};
const email = () => `acc-${randomUUID().slice(0, 8)}@example.com`;

/** A mail server of the test's own: every message it is handed, raw, with its envelope. */
async function startSmtp() {
  const received: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        done();
      });
    },
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  const port = (server.server.address() as AddressInfo).port;
  return { received, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((done) => server.close(() => done())) };
}

describe('standalone with SMTP_URL: a reset link received over SMTP', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-access-'));
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let app: SpawnedService;

  beforeAll(async () => {
    smtp = await startSmtp();
    app = await spawnStandalone({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory', SMTP_URL: smtp.url, MAIL_FROM: 'Pass <no-reply@pass.example>', ALLOWED_ORIGINS: SITE });
  }, 60_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sets a new password: the old one, an earlier session and its socket stop working; the link works once; no address in the logs', async () => {
    const address = email();
    const laptop = new Browser(app.url);
    const joined = await laptop.request('POST', '/api/register-user', { email: address, password: 'old1' });
    expect(joined.status).toBe(201);
    const socket = await laptop.socket();
    const stranger = email();

    const asked = await new Browser(app.url).request('POST', '/api/password-reset', { email: address });
    const unknown = await new Browser(app.url).request('POST', '/api/password-reset', { email: stranger });
    expect(asked).toEqual({ status: 202, body: { message: ACCOUNT_ACCESS_MESSAGES.resetRequested } });
    expect(unknown).toEqual(asked);

    await eventually(() => expect(smtp.received.filter((m) => m.to.includes(address))).toHaveLength(1), 15_000);
    const mail = smtp.received.find((m) => m.to.includes(address))!;
    expect(mail.raw).toMatch(/^From: Pass <no-reply@pass\.example>\r$/m);
    expect(mail.raw).toMatch(/^Subject: Set a new password for your pass\r$/m);
    const token = tokenIn(mail.raw);
    expect(token.startsWith(`${joined.body.id}.`)).toBe(true);

    const confirm = await new Browser(app.url).request('POST', '/api/password-reset/confirm', { token, password: 'new1' });
    expect(confirm.status).toBe(204);
    expect((await laptop.request('GET', `/api/verify-access/${joined.body.id}`)).status).toBe(401);
    const overSocket = await new Promise<{ ok: boolean; status?: number }>((done) => socket.emit('decreaseChatCount', (answer) => done(answer)));
    expect(overSocket).toMatchObject({ ok: false, status: 401 });
    expect((await new Browser(app.url).request('POST', '/api/register-user', { email: address, password: 'old1' })).status).toBe(401);
    expect((await new Browser(app.url).request('POST', '/api/register-user', { email: address, password: 'new1' })).status).toBe(200);
    const reused = await new Browser(app.url).request('POST', '/api/password-reset/confirm', { token, password: 'new2' });
    expect(reused).toEqual({ status: 400, body: { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid, fields: { token: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } } });

    expect(smtp.received.some((m) => m.to.includes(stranger))).toBe(false);
    expect(app.logs.some((line) => line.includes('mail over SMTP'))).toBe(true);
    for (const line of app.logs) {
      expect(line).not.toContain(address);
      expect(line).not.toContain(stranger);
      expect(line).not.toContain(token.split('.')[1]);
    }
    laptop.close();
  });
});

const redisUp = await requireService('infra: sessions of a member in Redis (standalone with REDIS_URL)', testRedisUrl(), 6379);
const layouts = [
  { name: 'sessions in the data folder', env: {} as Record<string, string>, skip: false },
  { name: 'sessions in Redis (REDIS_URL)', env: { REDIS_URL: testRedisUrl(), REDIS_PREFIX: `test:access:${randomUUID().slice(0, 8)}:` }, skip: !redisUp },
];

describe.each(layouts)('sign out everywhere and the export: $name', ({ env, skip }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-signout-'));
  let app: SpawnedService;

  beforeAll(async () => {
    if (skip) return;
    app = await spawnStandalone({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory', ALLOWED_ORIGINS: SITE, ...env });
  }, 60_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    if (env.REDIS_PREFIX && !skip) await dropRedisPrefix(testRedisUrl(), env.REDIS_PREFIX);
  });

  it.skipIf(skip)('signs out everywhere (the socket too) and downloads the member data', async () => {
    const address = email();
    const laptop = new Browser(app.url);
    const joined = await laptop.request('POST', '/api/register-user', { email: address, password: 'pass1' });
    const phone = new Browser(app.url);
    await phone.request('POST', '/api/register-user', { email: address, password: 'pass1' });

    const res = await fetch(`${app.url}/api/my-data`, { headers: { cookie: laptop.cookieHeader() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="my-data.json"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const data = (await res.json()) as MyDataExport;
    expect(data.account).toMatchObject({ id: joined.body.id, email: address });
    expect(data.pointHistory).toEqual([expect.objectContaining({ type: 'UserRegistered', points: 10 })]);
    expect(data.sessions.map((s) => s.current).sort()).toEqual([false, true]);

    const socket = await laptop.socket();
    expect((await phone.request('POST', '/api/logout-everywhere')).status).toBe(204);
    const overSocket = await new Promise<{ ok: boolean; status?: number }>((done) => socket.emit('decreaseChatCount', (answer) => done(answer)));
    expect(overSocket).toMatchObject({ ok: false, status: 401 });
    laptop.close();
    expect((await laptop.request('GET', '/api/my-data')).status).toBe(401);
    expect((await phone.request('GET', `/api/verify-access/${joined.body.id}`)).status).toBe(401);
  });
});

describe('standalone without SMTP_URL: the outbox', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-outbox-'));
  let app: SpawnedService;

  beforeAll(async () => {
    app = await spawnStandalone({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory', ALLOWED_ORIGINS: SITE });
  }, 60_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes each mail as an RFC 5322 file in DATA_DIR/outbox, and says so at start', async () => {
    expect(app.logs.some((line) => line.includes('"mail":"outbox"') && line.includes('.eml'))).toBe(true);
    const address = email();
    const b = new Browser(app.url);
    expect((await b.request('POST', '/api/register-user', { email: address, password: 'pass1' })).status).toBe(201);
    expect((await b.request('POST', '/api/password-reset', { email: address })).status).toBe(202);

    const outbox = join(dataDir, 'outbox');
    let files: string[] = [];
    await eventually(() => {
      files = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
      expect(files).toHaveLength(1);
    }, 15_000);
    expect(files[0]).toMatch(/^\d{4}-\d{2}-\d{2}T[\d-]+Z-[0-9a-f]{12}\.eml$/);
    const raw = readFileSync(join(outbox, files[0]!), 'utf8');
    expect(raw).toMatch(new RegExp(`^To: ${address.replace(/\./g, '\\.')}\r$`, 'm'));
    expect(raw).toMatch(/^Message-ID: <.+>\r$/m);
    expect(raw).toMatch(/^Date: .+\r$/m);
    expect(raw).not.toMatch(/[^\r]\n/); // CRLF line ends
    const token = tokenIn(raw);
    expect((await new Browser(app.url).request('POST', '/api/password-reset/confirm', { token, password: 'new1' })).status).toBe(204);
    expect((await b.request('GET', '/api/my-data')).status).toBe(401);
  });
});
