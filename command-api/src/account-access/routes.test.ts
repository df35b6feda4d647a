import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ACCESS_MESSAGES, PASSWORD_RESET_TTL_MS, USER_SESSION_COOKIE } from '@pass/events';
import { eventually } from '@pass/events/test-support';
import { MemoryMailer } from '../mail/mailer';
import { DEFAULT_LOGIN_LIMITS } from '../sessions/rate-limiter';
import { RELAXED_ACTION_LIMITS, startHarness, type Browser, type Harness } from '../test-support/harness';
import { joinedMember, nextMemberEmail } from '../test-support/members';

let h: Harness;
let mailer: MemoryMailer;
let nowMs = Date.parse('2026-05-01T09:00:00.000Z');
const clock = () => new Date(nowMs);
const FAILURES = 4;

beforeAll(async () => {
  mailer = new MemoryMailer();
  h = await startHarness({
    clock,
    adapters: { mailer },
    config: {
      siteUrl: 'https://pass.example',
      loginLimits: { ...DEFAULT_LOGIN_LIMITS, attemptsPerIp: { max: 1000, windowMs: 60_000 }, failuresPerAccountAndIp: { max: FAILURES, windowMs: 60_000 } },
      actionLimits: { ...RELAXED_ACTION_LIMITS, passwordResetPerEmail: { max: 3, windowMs: 3_600_000 }, passwordResetPerIp: { max: 1000, windowMs: 3_600_000 } },
    },
  });
});
afterAll(async () => {
  await h?.close();
});

/** A second browser signed in as the same member. */
async function signIn(address: string, password: string): Promise<Browser> {
  const b = h.browser();
  expect((await b.request('POST', '/api/register-user', { email: address, password })).status).toBe(200);
  return b;
}
const verify = (b: Browser, id: string) => b.request('GET', `/api/verify-access/${id}`).then((r) => r.status);
const logIn = (address: string, password: string) => h.browser().request('POST', '/api/register-user', { email: address, password }).then((r) => r.status);

describe('POST /api/change-password', () => {
  it('sets the new password and ends every other session of the member; this one stays', async () => {
    const { b, user, address } = await joinedMember(h, undefined, 'old1');
    const phone = await signIn(address, 'old1');
    const other = await joinedMember(h);
    expect((await b.request('POST', '/api/change-password', { currentPassword: 'old1', newPassword: 'new2' })).status).toBe(204);
    expect(await verify(b, user.id)).toBe(200);
    expect(await verify(phone, user.id)).toBe(401);
    expect(await verify(other.b, other.user.id)).toBe(200);
    expect(await logIn(address, 'old1')).toBe(401);
    expect(await logIn(address, 'new2')).toBe(200);
  });

  it('refuses a wrong current password with a message on the field, and counts it as a failed login', async () => {
    const { b, address } = await joinedMember(h, undefined, 'right');
    for (let i = 0; i < FAILURES; i++) {
      const res = await b.request('POST', '/api/change-password', { currentPassword: 'wrong', newPassword: 'new2' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword, fields: { currentPassword: ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword } });
    }
    const refused = await b.request('POST', '/api/change-password', { currentPassword: 'right', newPassword: 'new2' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/Too many login attempts/);
    expect(await logIn(address, 'right')).toBe(429); // the same account and client
  });

  it("applies the join form's password rules to the new one, and asks guests to join", async () => {
    const { b } = await joinedMember(h, undefined, 'pass1');
    const short = await b.request('POST', '/api/change-password', { currentPassword: 'pass1', newPassword: 'abc' });
    expect(short).toMatchObject({ status: 400, body: { error: 'Enter a valid password', fields: { newPassword: 'Enter a valid password' } } });
    const long = await b.request('POST', '/api/change-password', { currentPassword: 'pass1', newPassword: '123456789' });
    expect(long.body.fields).toEqual({ newPassword: 'Please do not exceed 8 characters' });
    const empty = await b.request('POST', '/api/change-password', {});
    expect(empty.body.fields).toEqual({ currentPassword: ACCOUNT_ACCESS_MESSAGES.currentPasswordRequired, newPassword: ACCOUNT_ACCESS_MESSAGES.newPasswordRequired });
    expect((await h.browser().request('POST', '/api/change-password', { currentPassword: 'pass1', newPassword: 'new2' })).status).toBe(401);
  });
});

describe('POST /api/logout-everywhere', () => {
  it('ends every session of the member, this one included, and clears its cookie', async () => {
    const { b, user, address } = await joinedMember(h);
    const phone = await signIn(address, 'pass1');
    const cookie = b.cookies.get(USER_SESSION_COOKIE)!;
    const res = await b.request('POST', '/api/logout-everywhere');
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().join()).toMatch(new RegExp(`${USER_SESSION_COOKIE}=;`));
    expect(await verify(phone, user.id)).toBe(401);
    const replay = h.browser();
    replay.cookies.set(USER_SESSION_COOKIE, cookie);
    expect(await verify(replay, user.id)).toBe(401);
    expect(await logIn(address, 'pass1')).toBe(200);
    expect((await h.browser().request('POST', '/api/logout-everywhere')).status).toBe(401);
  });
});

// The token rides in the fragment: browsers send it to no server, in no request and no Referer.
const linkIn = (text: string) => /https:\/\/pass\.example\/content\/reset-password#token=(\S+)/.exec(text);
async function mailTo(address: string): Promise<string> {
  let token = '';
  await eventually(() => {
    const mail = mailer.sent.findLast((m) => m.to === address);
    expect(mail).toBeDefined();
    token = decodeURIComponent(linkIn(mail!.text)![1]!);
  });
  return token;
}

describe('password reset', () => {
  it('answers the same for a registered and an unknown address, and mails only the registered one', async () => {
    const { address } = await joinedMember(h);
    const unknown = nextMemberEmail();
    const stranger = await h.browser().request('POST', '/api/password-reset', { email: unknown });
    const known = await h.browser().request('POST', '/api/password-reset', { email: address });
    expect(known.status).toBe(202);
    expect(stranger.status).toBe(202);
    expect(stranger.body).toEqual(known.body);
    expect(known.body).toEqual({ message: ACCOUNT_ACCESS_MESSAGES.resetRequested });
    await mailTo(address); // asked for after the unknown one, which needs one read less
    expect(mailer.sent.filter((m) => m.to === unknown)).toEqual([]);
    // Its mail was built all the same (the same work for either address), only not sent.
    expect(mailer.rehearsed.filter((m) => m.to === unknown)).toHaveLength(1);
    const mail = mailer.sent.findLast((m) => m.to === address)!;
    expect(mail.subject).toBe('Set a new password for your pass');
    expect(mail.text).toMatch(/works once, within 1 hour/);
  });

  it('sets a new password with the link: the old one and every earlier session stop working, and the link works once', async () => {
    const { b, user, address } = await joinedMember(h, undefined, 'old1');
    expect((await h.browser().request('POST', '/api/password-reset', { email: address.toUpperCase() })).status).toBe(202);
    const token = await mailTo(address);
    expect(token.startsWith(`${user.id}.`)).toBe(true);
    const confirm = (password: string, t = token) => h.browser().request('POST', '/api/password-reset/confirm', { token: t, password });
    expect((await confirm('new1')).status).toBe(204);
    expect(await verify(b, user.id)).toBe(401);
    expect(await logIn(address, 'old1')).toBe(401);
    expect(await logIn(address, 'new1')).toBe(200);
    const again = await confirm('new3');
    expect(again).toMatchObject({ status: 400, body: { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } });
    expect(await logIn(address, 'new1')).toBe(200);
  });

  it('refuses an expired link, a forged one and one asked for before a password change', async () => {
    const { b, address } = await joinedMember(h, undefined, 'old1');
    await h.browser().request('POST', '/api/password-reset', { email: address });
    const early = await mailTo(address);
    expect((await b.request('POST', '/api/change-password', { currentPassword: 'old1', newPassword: 'new1' })).status).toBe(204);
    const confirm = (token: string) => h.browser().request('POST', '/api/password-reset/confirm', { token, password: 'pass9' });
    expect((await confirm(early)).status).toBe(400);

    // A link is signed with the time it was made: a second later, another link.
    nowMs += 1_000;
    await h.browser().request('POST', '/api/password-reset', { email: address });
    await eventually(async () => expect(await mailTo(address)).not.toBe(early));
    const late = await mailTo(address);
    const [id, secret] = late.split('.') as [string, string];
    for (const forged of [`${id}.${'A'.repeat(43)}`, `${id}.${secret.slice(0, -1)}`, `not-a-member.${secret}`, secret, 'x', `${id}.${secret}.extra`]) {
      expect(await confirm(forged), forged).toMatchObject({ status: 400, body: { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } });
    }
    nowMs += PASSWORD_RESET_TTL_MS;
    expect(await confirm(late)).toMatchObject({ status: 400, body: { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } });
    expect(await logIn(address, 'new1')).toBe(200);
  });

  it('tells on arrival whether a link still sets a password, without using it or saying whose it is', async () => {
    const { user, address } = await joinedMember(h, undefined, 'old1');
    await h.browser().request('POST', '/api/password-reset', { email: address });
    const token = await mailTo(address);
    const check = (body: unknown) => h.browser().request('POST', '/api/password-reset/check', body);
    const invalid = { status: 400, body: { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid, fields: { token: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } } };
    for (let i = 0; i < 2; i++) {
      const usable = await check({ token });
      expect(usable).toMatchObject({ status: 200, body: { usable: true } });
      expect(JSON.stringify(usable.body)).not.toContain(user.id);
    }
    for (const bad of [{}, { token: '' }, { token: 42 }, { token: 'x'.repeat(201) }, { token: `${token}x` }, { token: `not-a-member.${token.split('.')[1]}` }]) {
      expect(await check(bad), JSON.stringify(bad)).toMatchObject(invalid);
    }
    // Asking used nothing: the link still sets the password, once; then it says so on arrival.
    expect((await h.browser().request('POST', '/api/password-reset/confirm', { token, password: 'new1' })).status).toBe(204);
    expect(await check({ token })).toMatchObject(invalid);
    expect(await logIn(address, 'new1')).toBe(200);
    // An expired one too.
    nowMs += 1_000;
    await h.browser().request('POST', '/api/password-reset', { email: address });
    await eventually(async () => expect(await mailTo(address)).not.toBe(token));
    const late = await mailTo(address);
    expect((await check({ token: late })).status).toBe(200);
    nowMs += PASSWORD_RESET_TTL_MS;
    expect(await check({ token: late })).toMatchObject(invalid);
  });

  it('limits the mails asked for one address, registered or not, with the same 429', async () => {
    const { address } = await joinedMember(h);
    const unknown = nextMemberEmail();
    for (const email of [address, unknown]) {
      for (let i = 0; i < 3; i++) expect((await h.browser().request('POST', '/api/password-reset', { email })).status).toBe(202);
      const refused = await h.browser().request('POST', '/api/password-reset', { email: ` ${email.toUpperCase()} ` });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.body.error).toMatch(/^Too many password reset requests\. Please wait \d+ minutes? and try again\.$/);
    }
  });

  it('refuses a malformed address with the join form\'s message', async () => {
    const res = await h.browser().request('POST', '/api/password-reset', { email: 'nobody' });
    expect(res).toMatchObject({ status: 400, body: { error: 'Invalid Email', fields: { email: 'Invalid Email' } } });
  });
});

describe('password reset: the mail is off the answer', () => {
  it('answers 202 for a registered address while its mail is still being sent', async () => {
    let release!: () => void;
    const gate = new Promise<void>((done) => (release = done));
    const sent: string[] = [];
    const slow = { describe: 'held', send: async (m: { to: string }) => (await gate, void sent.push(m.to)), rehearse: async () => undefined, close: async () => undefined };
    const own = await startHarness({ adapters: { mailer: slow } });
    try {
      const { address } = await joinedMember(own);
      const res = await own.browser().request('POST', '/api/password-reset', { email: address });
      expect(res.status).toBe(202);
      expect(sent).toEqual([]);
      release();
      await eventually(() => expect(sent).toEqual([address]));
    } finally {
      release();
      await own.close();
    }
  });
});
