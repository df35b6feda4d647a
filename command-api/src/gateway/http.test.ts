import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE } from '@pass/events';
import { startHarness, type Harness } from '../test-support/harness';
import { createHttpCommandGateway } from './http';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('HTTP command gateway (distributed mode)', () => {
  it('forwards socket commands with the socket cookie and answers what the route answered', async () => {
    const b = h.browser();
    const { body: joined } = await b.request('POST', '/api/register-user', { email: 'socket@example.com', password: 'pass1' });
    const cookieHeader = `${USER_SESSION_COOKIE}=${b.cookies.get(USER_SESSION_COOKIE)}`;
    const { user } = await h.api.sessions.verify(cookieHeader);
    const gateway = createHttpCommandGateway({ baseUrl: h.url });

    const sent = await gateway.sendChatMessage(user!, { message: 'over the wire' }, { correlationId: 'c1', cookieHeader });
    expect(sent).toMatchObject({ ok: true, data: { message: { userId: joined.id, message: 'over the wire' }, user: { chatCount: 9 } } });
    expect(await gateway.sendChatMessage(user!, { message: '' }, { correlationId: 'c2', cookieHeader })).toEqual({ ok: false, status: 400, error: 'Please enter a message' });
    // A retried draft (same request id) is forwarded with its id and posted once.
    const draft = { message: 'retried over the wire', requestId: 'wire-1' };
    const once = await gateway.sendChatMessage(user!, draft, { correlationId: 'c2a', cookieHeader });
    const twice = await gateway.sendChatMessage(user!, draft, { correlationId: 'c2b', cookieHeader });
    expect(once.ok && twice.ok && twice.data.message).toEqual(once.ok && once.data.message);
    expect(twice).toMatchObject({ ok: true, data: { user: { chatCount: 8 } } });
    const ticket = h.adViewTicket(joined.id);
    expect(await gateway.awardFreePoint(user!, { ticket: 'v1.1.forged' }, { correlationId: 'c3', cookieHeader })).toEqual({
      ok: false,
      status: 400,
      error: 'Watch the free-point countdown on the free points page to earn a point',
    });
    expect(await gateway.awardFreePoint(user!, { ticket }, { correlationId: 'c3', cookieHeader })).toMatchObject({ ok: true, data: { user: { chatCount: 9 } } });
    expect(await gateway.awardFreePoint(user!, { ticket }, { correlationId: 'c4', cookieHeader })).toMatchObject({ ok: false, status: 409 });
    expect(await gateway.currentUser(user!, { correlationId: 'c5', cookieHeader })).toMatchObject({ ok: true, data: { id: joined.id } });
    // No cookie, no command: the principal alone is not trusted across the hop.
    expect(await gateway.awardFreePoint(user!, { ticket }, { correlationId: 'c6' })).toMatchObject({ ok: false, status: 401 });
    expect(await createHttpCommandGateway({ baseUrl: 'http://127.0.0.1:1' }).awardFreePoint(user!, { ticket }, { correlationId: 'c7', cookieHeader })).toMatchObject({
      ok: false,
      status: 503,
    });
  });

  it('passes on a refusal’s wait, so the socket can tell the member how long', async () => {
    const stub = createServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end(JSON.stringify({ error: 'You are sending messages too fast. Please wait 7 seconds and try again.', retryAfterSeconds: 7 }));
    });
    await new Promise<void>((ready) => stub.listen(0, '127.0.0.1', ready));
    try {
      const gateway = createHttpCommandGateway({ baseUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}` });
      const user = { kind: 'user' as const, id: 'u1', sessionId: 's1', expiresAt: new Date(Date.now() + 60_000) };
      expect(await gateway.sendChatMessage(user, { message: 'hi' }, { correlationId: 'c1', cookieHeader: 'pass_session=x' })).toEqual({
        ok: false,
        status: 429,
        error: 'You are sending messages too fast. Please wait 7 seconds and try again.',
        retryAfterSeconds: 7,
      });
    } finally {
      await new Promise((done) => stub.close(done));
    }
  });

  it('keeps one connection for consecutive commands, and answers 503 when command-api hangs or answers no JSON', async () => {
    const connections: number[] = [];
    let mode: 'hang' | 'text' = 'text';
    const stub = createServer((req, res) => {
      if (mode === 'hang') return; // never answers
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
    });
    stub.on('connection', () => connections.push(Date.now()));
    await new Promise<void>((ready) => stub.listen(0, '127.0.0.1', ready));
    try {
      const gateway = createHttpCommandGateway({ baseUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`, timeoutMs: 300 });
      const user = { kind: 'user' as const, id: 'u1', sessionId: 's1', expiresAt: new Date(Date.now() + 60_000) };
      const ctx = { correlationId: 'k1', cookieHeader: 'pass_session=x' };
      for (let i = 0; i < 3; i++) expect(await gateway.sendChatMessage(user, { message: 'hi' }, ctx)).toEqual({ ok: false, status: 502, error: 'The service is temporarily unavailable, please try again' });
      expect(connections).toHaveLength(1);
      mode = 'hang';
      const started = Date.now();
      expect(await gateway.currentUser(user, ctx)).toEqual({ ok: false, status: 503, error: 'The service is temporarily unavailable, please try again' });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      stub.closeAllConnections();
      await new Promise<void>((done) => stub.close(() => done()));
    }
  });
});
