import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streams } from '@pass/events';
import { startHarness, type Harness } from '../test-support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function member() {
  const b = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: `chat${Math.random().toString(36).slice(2, 8)}@example.com`, password: 'pass1' });
  return { b, id: res.body.id as string };
}

describe('POST /api/chat-messages', () => {
  it('records the message with its text, spending one point', async () => {
    const { b, id } = await member();
    const res = await b.request('POST', '/api/chat-messages', { message: '  Hola a todos  ' });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ userId: id, nickname: 'Anonymous', message: 'Hola a todos', priority: '' });
    expect(res.body.user.chatCount).toBe(9);
    const [, sent] = await h.store.readStream(streams.user(id));
    expect(sent).toMatchObject({ type: 'ChatMessageSent', data: { message: 'Hola a todos', pointsSpent: 1 } });
  });

  it('posts a message sent again with the same request id once, answering the first result', async () => {
    const { b, id } = await member();
    const first = await b.request('POST', '/api/chat-messages', { message: 'only once', requestId: 'draft-1' });
    expect(first.status).toBe(201);
    expect(first.body.user.chatCount).toBe(9);
    // The answer was lost; the client sends the same draft again (text re-typed differently changes nothing).
    const again = await b.request('POST', '/api/chat-messages', { message: 'only once!', requestId: 'draft-1' });
    expect(again.status).toBe(201);
    expect(again.body.message).toEqual(first.body.message);
    expect(again.body.user.chatCount).toBe(9);
    // Several retries at once (a client and its reconnect racing): still one message.
    const racing = await Promise.all(Array.from({ length: 5 }, () => b.request('POST', '/api/chat-messages', { message: 'race', requestId: 'draft-2' })));
    expect(new Set(racing.map((r) => r.body.message.id)).size).toBe(1);
    expect(racing.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    // Another draft is another message.
    expect((await b.request('POST', '/api/chat-messages', { message: 'next', requestId: 'draft-3' })).body.user.chatCount).toBe(7);
    const sent = (await h.store.readStream(streams.user(id))).filter((e) => e.type === 'ChatMessageSent');
    expect(sent.map((e) => (e.data as { message: string }).message)).toEqual(['only once', 'race', 'next']);
  });

  it('answers the first result on another instance too (no cached state: the decider tells)', async () => {
    const { b, id } = await member();
    const first = await b.request('POST', '/api/chat-messages', { message: 'hello', requestId: 'r1' });
    const other = await startHarness({ store: h.store });
    try {
      // The socket path of a second instance (its gateway takes the member the socket verified).
      const { user } = await h.api.sessions.verify(`pass_session=${b.cookies.get('pass_session')}`);
      const answer = await other.api.gateway.sendChatMessage(user!, { message: 'hello', requestId: 'r1' }, { correlationId: 'c-other' });
      expect(answer).toMatchObject({ ok: true, data: { message: first.body.message, user: { chatCount: 9 } } });
    } finally {
      await other.close();
    }
    expect((await h.store.readStream(streams.user(id))).filter((e) => e.type === 'ChatMessageSent')).toHaveLength(1);
  });

  it('keeps one member\'s request id from naming another member\'s message, and refuses a malformed one', async () => {
    const a = await member();
    const c = await member();
    const fromA = await a.b.request('POST', '/api/chat-messages', { message: 'a', requestId: 'same' });
    const fromC = await c.b.request('POST', '/api/chat-messages', { message: 'c', requestId: 'same' });
    expect(fromC.status).toBe(201);
    expect(fromC.body.message.id).not.toBe(fromA.body.message.id);
    expect(fromC.body.message).toMatchObject({ userId: c.id, message: 'c' });
    for (const requestId of ['', 'has space', 'x'.repeat(101), 42]) {
      const bad = await a.b.request('POST', '/api/chat-messages', { message: 'bad', requestId });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('The request id is not valid');
    }
  });

  it('answers 402 once the points are spent, recording nothing', async () => {
    const { b, id } = await member();
    for (let i = 0; i < 10; i++) expect((await b.request('POST', '/api/chat-messages', { message: `m${i}` })).status).toBe(201);
    const res = await b.request('POST', '/api/chat-messages', { message: 'one more' });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/no points left/);
    expect((await h.store.readStream(streams.user(id))).length).toBe(11);
  });

  it.each([
    [{ message: '' }, 'Please enter a message'],
    [{}, 'Please enter a message'],
    [{ message: 'x'.repeat(501) }, 'The message is too long'],
  ])('refuses %j', async (body, message) => {
    const { b } = await member();
    const res = await b.request('POST', '/api/chat-messages', body);
    expect(res.status).toBe(400);
    expect(res.body.fields.message).toBe(message);
  });

  it('the in-process gateway applies the same rules for sockets', async () => {
    const { b, id } = await member();
    const { user } = await h.api.sessions.verify(`pass_session=${b.cookies.get('pass_session')}`);
    const ok = await h.api.gateway.sendChatMessage(user!, { message: 'from a socket' }, { correlationId: 'c1' });
    expect(ok).toMatchObject({ ok: true, data: { message: { userId: id, message: 'from a socket' }, user: { chatCount: 9 } } });
    expect(await h.api.gateway.sendChatMessage(user!, { message: '' }, { correlationId: 'c2' })).toEqual({ ok: false, status: 400, error: 'Please enter a message' });
    const ticket = h.adViewTicket(id);
    expect(await h.api.gateway.awardFreePoint(user!, { ticket: '' }, { correlationId: 'c3' })).toMatchObject({ ok: false, status: 400 });
    expect(await h.api.gateway.awardFreePoint(user!, { ticket }, { correlationId: 'c3' })).toMatchObject({ ok: true, data: { user: { chatCount: 10 } } });
    expect(await h.api.gateway.awardFreePoint(user!, { ticket }, { correlationId: 'c4' })).toMatchObject({ ok: false, status: 409 });
    expect(await h.api.gateway.currentUser(user!, { correlationId: 'c5' })).toMatchObject({ ok: true, data: { id, chatCount: 10 } });
  });
});
