import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import type { ChatMessageView, ClientToServerEvents, ServerToClientEvents, UserView } from '@pass/events';
import { AdViewTickets } from '@pass/command-api';
import { appendEvents } from '@pass/projector/test-support';
import { recordedDay, ANA } from '@pass/projector/test-support';
import { ADMIN, startReadSide, type Client, type ReadSide } from '../test-support/read-side';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

function next<E extends keyof ServerToClientEvents>(socket: ClientSocket, event: E, match: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean = () => true) {
  return new Promise<Parameters<ServerToClientEvents[E]>[0]>((done) => {
    const listener = (payload: Parameters<ServerToClientEvents[E]>[0]) => {
      if (!match(payload)) return;
      socket.off(event, listener as never);
      done(payload);
    };
    socket.on(event, listener as never);
  });
}

/** An acknowledgement as the client sees it (api.ts Ack). */
interface Answer {
  ok: boolean;
  status?: number;
  error?: string;
  data?: { user: UserView; message?: ChatMessageView };
}
const ack = (_socket: ClientSocket, send: (cb: (answer: Answer) => void) => void) => new Promise<Answer>((done) => send(done));

describe('Socket.IO live events', () => {
  let side: ReadSide;
  let member: Client;
  let memberId: string;

  beforeAll(async () => {
    side = await startReadSide();
    await appendEvents(side.store, recordedDay);
    member = side.client();
    const joined = await member.request('POST', '/api/register-user', { email: 'zoe@chat.io', password: 'pass1' });
    memberId = joined.body.id;
    await side.projector.settled();
  });
  afterAll(async () => {
    await side.close();
  });

  it('answers reads: figures, newest post, chat history', async () => {
    const guest = await side.socket();
    const main = next(guest, 'updatedMainData');
    guest.emit('getUpdatedMainData');
    expect(await main).toMatchObject({ mainData: { sold: 27, members: 3, fundsRaised: 25.1 }, countries: { distinct: 2 } });
    const post = next(guest, 'globalMember');
    guest.emit('getGlobalMember');
    expect(await post).toMatchObject({ user: { id: ANA }, message: 'Updated greeting' });
    const chat = next(guest, 'chatMessages');
    guest.emit('getChatMessages');
    expect(await chat).toMatchObject({ total: 1, messages: [{ id: 'm3' }] });
    guest.disconnect();
  });

  it('counts connected users and tells everyone', async () => {
    const a = await side.socket(undefined, { address: '203.0.113.1' });
    const seen = next(a, 'connectedUsers', (n) => n === 2);
    const b = await side.socket(undefined, { address: '203.0.113.2' });
    expect(await seen).toBe(2);
    const after = next(a, 'connectedUsers', (n) => n === 1);
    b.disconnect();
    expect(await after).toBe(1);
    a.disconnect();
  });

  it('counts visitors, not sockets: the tabs of one client address count once', async () => {
    const a = await side.socket(undefined, { address: '203.0.113.3' });
    const figures: number[] = [];
    a.on('connectedUsers', (n) => figures.push(n));
    const tabs = [await side.socket(undefined, { address: '203.0.113.4' }), await side.socket(undefined, { address: '203.0.113.4' }), await side.socket(undefined, { address: '203.0.113.4' })];
    await new Promise((done) => setTimeout(done, 600));
    expect(figures.at(-1)).toBe(2);
    for (const tab of tabs) tab.disconnect();
    a.disconnect();
  });

  it('sends a chat message as the session user, and everyone hears it from the projector', async () => {
    const listener = await side.socket();
    const sender = await side.socket(member);
    const heard = next(listener, 'chatMessage', (m) => m.message === 'hi all');
    // An e-mail in the payload is ignored: the user is the one of the session cookie.
    const answer = await ack(sender, (cb) => sender.emit('sendChatMessage', { message: 'hi all', email: 'ana@example.com' } as never, cb));
    expect(answer).toMatchObject({ ok: true, data: { message: { userId: memberId, message: 'hi all' }, user: { id: memberId, chatCount: 9 } } });
    expect(await heard).toMatchObject({ userId: memberId, message: 'hi all' });
    const main = await side.client().request('GET', '/api/main-data');
    expect(main.body.globalMessages).toBe(2);
    listener.disconnect();
    sender.disconnect();
  });

  it('posts a chat message resent with the same request id once, over the socket and then HTTP', async () => {
    const listener = await side.socket();
    const heard: string[] = [];
    listener.on('chatMessage', (m) => heard.push(m.id));
    const sender = await side.socket(member);
    const draft = { message: 'said once', requestId: 'socket-draft-1' };
    const first = await ack(sender, (cb) => sender.emit('sendChatMessage', draft, cb));
    expect(first).toMatchObject({ ok: true, data: { message: { message: 'said once' } } });
    // The ack was lost: the client asks again on the socket, then over HTTP (what the web does after its timeout).
    const again = await ack(sender, (cb) => sender.emit('sendChatMessage', draft, cb));
    const overHttp = await member.request('POST', '/api/chat-messages', draft);
    expect(again.data!.message).toEqual(first.data!.message);
    expect(overHttp.body.message).toEqual(first.data!.message);
    expect(overHttp.body.user.chatCount).toBe(first.data!.user.chatCount);
    await side.projector.settled();
    await new Promise((done) => setTimeout(done, 200));
    expect(heard.filter((id) => id === first.data!.message!.id)).toHaveLength(1);
    listener.disconnect();
    sender.disconnect();
  });

  it('refuses guests, and messages that break the chat rules', async () => {
    const guest = await side.socket();
    expect(await ack(guest, (cb) => guest.emit('sendChatMessage', { message: 'hello' }, cb))).toEqual({ ok: false, status: 401, error: 'Please join first' });
    expect(await ack(guest, (cb) => guest.emit('increaseChatCount', { ticket: '' }, cb))).toMatchObject({ ok: false, status: 401 });
    const sender = await side.socket(member);
    expect(await ack(sender, (cb) => sender.emit('sendChatMessage', { message: 'x'.repeat(501) }, cb))).toEqual({
      ok: false,
      status: 400,
      error: 'The message is too long',
    });
    expect(await ack(sender, (cb) => sender.emit('sendChatMessage', { message: '   ' }, cb))).toMatchObject({ ok: false, status: 400 });
    guest.disconnect();
    sender.disconnect();
  });

  it('awards the free point for a watched countdown, once per ticket; decreaseChatCount only reports the user', async () => {
    const s = await side.socket(member);
    const before = await ack(s, (cb) => s.emit('decreaseChatCount', cb));
    expect(before.ok).toBe(true);
    // Without the ticket of a countdown, or with one that has not run yet: refused, with the page's message.
    expect(await ack(s, (cb) => s.emit('increaseChatCount', cb as never))).toMatchObject({ ok: false, status: 400, error: expect.stringMatching(/countdown/) });
    const fresh = await side.client().request('POST', '/api/free-point/ticket');
    expect(fresh.status).toBe(401);
    const justStarted = await member.request('POST', '/api/free-point/ticket');
    expect(await ack(s, (cb) => s.emit('increaseChatCount', { ticket: justStarted.body.ticket }, cb))).toMatchObject({ ok: false, status: 429 });
    // A countdown started 29 s ago (signed with the read side's session secret, as command-api would have).
    const ticket = new AdViewTickets('s'.repeat(40)).issue(memberId, new Date(Date.now() - 29_000)).ticket;
    const first = await ack(s, (cb) => s.emit('increaseChatCount', { ticket }, cb));
    expect(first).toMatchObject({ ok: true, data: { user: { chatCount: before.data!.user.chatCount + 1 } } });
    const again = await ack(s, (cb) => s.emit('increaseChatCount', { ticket }, cb));
    expect(again).toMatchObject({ ok: false, status: 409 });
    const after = await ack(s, (cb) => s.emit('decreaseChatCount', cb));
    expect(after.data!.user.chatCount).toBe(before.data!.user.chatCount + 1);
    s.disconnect();
  });

  it('sends everyone the emptied history when the admin clears the chat', async () => {
    const listener = await side.socket();
    const cleared = next(listener, 'chatMessages', (h) => h.total === 0);
    const admin = side.client();
    await admin.request('POST', '/api/admin-login', ADMIN);
    expect((await admin.request('DELETE', '/api/delete-chat-messages')).status).toBe(204);
    expect(await cleared).toEqual({ total: 0, messages: [] });
    listener.disconnect();
  });

  it('stops accepting commands from a socket whose session was logged out', async () => {
    const c = side.client();
    await c.request('POST', '/api/register-user', { email: 'leaver@bye.io', password: 'pass1' });
    const s = await side.socket(c);
    expect((await ack(s, (cb) => s.emit('decreaseChatCount', cb))).ok).toBe(true);
    expect((await c.request('POST', '/api/logout')).status).toBe(204);
    expect(await ack(s, (cb) => s.emit('sendChatMessage', { message: 'still here?' }, cb))).toMatchObject({ ok: false, status: 401 });
    s.disconnect();
  });
});
