import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE, type MyDataExport } from '@pass/events';
import { MemoryMailer } from '../mail/mailer';
import { startHarness, type Harness } from '../test-support/harness';
import { joinedMember } from '../test-support/members';

let h: Harness;
const mailer = new MemoryMailer();
beforeAll(async () => {
  h = await startHarness({ adapters: { mailer }, config: { siteUrl: 'https://pass.example/' } });
});
afterAll(async () => {
  await h?.close();
});

describe('GET /api/my-data', () => {
  it('downloads everything held about the member: account, balance, history with running totals, chat, resets, sessions; no secret', async () => {
    const { b, user, address } = await joinedMember(h, undefined, 'pass1');
    const phone = h.browser();
    await phone.request('POST', '/api/register-user', { email: address, password: 'pass1' });
    expect((await b.request('POST', '/api/chat-messages', { message: 'hola a todos' })).status).toBe(201);
    await h.browser().request('POST', '/api/password-reset', { email: address });
    await expect.poll(() => mailer.sent.length).toBe(1);

    const res = await b.request('GET', '/api/my-data');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="my-data.json"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const data = res.body as MyDataExport;
    expect(data.account).toMatchObject({ id: user.id, email: address, priority: '', passwordChangedAt: null });
    expect(data.balance).toEqual({ points: 9, passes: 0, boughtUsd: 0 });
    expect(data.card).toBeNull();
    expect(data.pointHistory.map((e) => [e.type, e.pointsDelta, e.points])).toEqual([
      ['UserRegistered', 10, 10],
      ['ChatMessageSent', -1, 9],
    ]);
    expect(data.chatMessages).toEqual([expect.objectContaining({ message: 'hola a todos', pointsSpent: 1 })]);
    // A reset link is signed, not recorded: asking for one leaves nothing to export.
    expect(data.passwordResets).toEqual([]);
    expect(data.sessions).toHaveLength(2);
    expect(data.sessions.filter((session) => session.current)).toHaveLength(1);

    const text = JSON.stringify(res.body);
    const mailedSecret = /token=[^.]+\.(\S+)/.exec(mailer.sent[0]!.text)![1]!;
    const cookieId = b.cookies.get(USER_SESSION_COOKIE)!.split('.')[0]!;
    for (const secret of ['passwordHash', 'tokenHash', '$argon2', mailedSecret, cookieId]) expect(text).not.toContain(secret);
  });

  it('is refused to guests', async () => {
    const res = await h.browser().request('GET', '/api/my-data');
    expect(res).toMatchObject({ status: 401, body: { error: 'Please join to continue' } });
  });
});
