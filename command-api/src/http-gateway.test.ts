import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE } from '@pass/events';
import { startHarness, type Harness } from './testing/harness';
import { createHttpCommandGateway } from './http-gateway';

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
});
