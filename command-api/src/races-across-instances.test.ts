import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE, streams } from '@pass/events';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { SimulatedPaymentProvider } from './payments/provider/simulated-provider';
import { DEFAULT_LOGIN_LIMITS } from './sessions/rate-limiter';
import { ADMIN, RELAXED_ACTION_LIMITS, type Browser, type Harness } from './test-support/harness';
import { smallPng } from './test-support/images';
import { startTwoInstances, type TwoInstances } from './test-support/two-instances';

const pgUp = await requireService('command-api races across instances (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('command-api races across instances (Redis)', testRedisUrl(), 6379);

/**
 * Messages a member may send per minute here, and wrong passwords per (account, client); the
 * throttle takes a login's point before the password is checked, so the joins raced below fit in it.
 */
const CHAT_LIMIT = 20;
const PASSWORD_LIMIT = 12;

/**
 * Every race of the product with its racing requests split across two command-api instances on
 * one PostgreSQL store and one Redis (issue "High availability", item 3). Each instance queues a
 * stream's commands in its own memory; across instances only the store's expected revision and
 * the shared Redis counters hold the rules, and these tests are what shows they do.
 */
describe.skipIf(!pgUp || !redisUp)('races split across two command-api instances', () => {
  // The one payment provider both instances ask, as PayPal is for a real deployment.
  const provider = new SimulatedPaymentProvider();
  let pair: TwoInstances;
  let n = 0;

  beforeAll(async () => {
    pair = await startTwoInstances({
      payments: provider,
      // Every client of the harness is 127.0.0.1: the joins below must not use up its allowance.
      loginLimits: { ...DEFAULT_LOGIN_LIMITS, attemptsPerIp: { max: 10_000, windowMs: 60_000 }, failuresPerAccountAndIp: { max: PASSWORD_LIMIT, windowMs: 60_000 } },
      actionLimits: { ...RELAXED_ACTION_LIMITS, chatPerUser: { max: CHAT_LIMIT, windowMs: 60_000 } },
    });
  });
  afterAll(async () => {
    await pair?.close();
  });

  /** The instance the `i`th of a burst of requests goes to: every other one to each. */
  const instance = (i: number): Harness => (i % 2 ? pair.b : pair.a);

  /**
   * A member who joined on A and has a page open on B too (one session; the page verified it),
   * so both instances hold the member's state: holding 10 points plus `usd` bought.
   */
  async function member(usd = 0) {
    const email = `racer${++n}@example.com`;
    const onA = pair.a.browser();
    const joined = await onA.request('POST', '/api/register-user', { email, password: 'pass1' });
    expect(joined.status).toBe(201);
    const onB = pair.b.browser();
    onB.cookies.set(USER_SESSION_COOKIE, onA.cookies.get(USER_SESSION_COOKIE)!);
    const id = joined.body.id as string;
    expect((await onB.request('GET', `/api/verify-access/${id}`)).status).toBe(200);
    if (usd > 0) {
      const { orderId } = await provider.createOrder(id, usd);
      await provider.captureOrder(orderId);
      expect((await onB.request('POST', '/api/buy-points', { orderId })).status).toBe(200);
    }
    const browsers: [Browser, Browser] = [onA, onB];
    return {
      id,
      email,
      /** The member's browser on the instance the `i`th request of a burst goes to. */
      on: (i: number) => browsers[i % 2]!,
      /** What the member's "My data" export shows (read from their stream on B). */
      myData: async () => (await onB.request('GET', '/api/my-data')).body,
    };
  }

  /** The post form with one card image and `passes` to claim. */
  async function claimForm(email: string, passes: number): Promise<FormData> {
    const form = new FormData();
    for (const [k, v] of Object.entries({ fullname: 'Racer', country: 'Peru', email, link: 'https://race.example.com', message: 'At once', passes: String(passes) })) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'card.png');
    return form;
  }

  async function setSupply(available: number): Promise<void> {
    const admin = pair.a.browser();
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
    expect((await admin.request('PUT', '/api/main-data', { available, cpm: 1, donations: 0, startDate: '' })).status).toBe(200);
  }

  const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

  it('members claiming the last passes on both instances at once get the supply and no more, paying only for what they got', async () => {
    const buyers = await Promise.all(Array.from({ length: 12 }, () => member(1)));
    await setSupply(5);
    const forms = await Promise.all(buyers.map((m) => claimForm(m.email, 1)));
    const answers = await Promise.all(buyers.map((m, i) => m.on(i).form('/api/register-special-user', forms[i]!)));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 200), JSON.stringify(statuses)).toBe(5);
    // The rest are told no passes are left (by the form's check or by the pool).
    for (const refused of answers.filter((r) => r.status !== 200)) expect([400, 409]).toContain(refused.status);

    const exports = await Promise.all(buyers.map((m) => m.myData()));
    expect(exports.reduce((sum, e) => sum + e.balance.passes, 0)).toBe(5);
    exports.forEach((e, i) => expect(e.balance.points).toBe(answers[i]!.status === 200 ? 110 - 20 : 110));
    // And nothing is left for a later claim on either instance.
    for (const i of [0, 1]) expect((await buyers[i]!.on(i).form('/api/register-special-user', await claimForm(buyers[i]!.email, 1))).status).not.toBe(200);
  });

  it("one member spending on passes and chat on both instances at once never goes below zero, and the balance is the events' sum", async () => {
    await setSupply(1_000);
    const m = await member(1); // 110 points; asked below: 3 claims of 40 and 20 messages of 1, 140 in all
    const forms = await Promise.all([0, 1, 2].map(() => claimForm(m.email, 2)));
    // A claim's steps and its image's processing spread the requests; a store slow to commit keeps
    // each instance's appends in flight while the other decides.
    pair.setAppendLatency(100);
    let claimed: number[];
    let sent: number[];
    try {
      const claims = forms.map((form, i) => m.on(i).form('/api/register-special-user', form));
      const chats = Array.from({ length: 20 }, (_, i) => m.on(i).request('POST', '/api/chat-messages', { message: `spend ${i}` }));
      claimed = (await Promise.all(claims)).map((r) => r.status);
      sent = (await Promise.all(chats)).map((r) => r.status);
    } finally {
      pair.setAppendLatency(0);
    }
    // Refused only for want of points (the form's own check, or the decider's 402).
    for (const status of claimed) expect([200, 400, 402]).toContain(status);
    for (const status of sent) expect([201, 402]).toContain(status);

    const { balance, passes, chatMessages } = await m.myData();
    expect(passes).toHaveLength(count(claimed, 200));
    expect(chatMessages).toHaveLength(count(sent, 201));
    expect(balance.points).toBe(110 - 40 * count(claimed, 200) - count(sent, 201));
    expect(balance.points).toBeGreaterThanOrEqual(0);
    if (count(sent, 402) > 0) expect(balance.points).toBe(0);
    if (count(claimed, 200) < 3) expect(balance.points).toBeLessThan(40);
  });

  it('a member with points for 10 messages sending 16 on both instances at once gets exactly 10 posted', async () => {
    const m = await member();
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => m.on(i).request('POST', '/api/chat-messages', { message: `burst ${i}` })));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 201), JSON.stringify(statuses)).toBe(10);
    expect(count(statuses, 402)).toBe(6);
    const { balance, chatMessages } = await m.myData();
    expect(chatMessages).toHaveLength(10);
    expect(balance.points).toBe(0);
  });

  it('a message retried on both instances at once (one request id) is posted once and costs one point', async () => {
    const m = await member();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => m.on(i).request('POST', '/api/chat-messages', { message: 'once', requestId: 'draft-1' })));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((r) => r.body.message.id)).size).toBe(1);
    const { balance, chatMessages } = await m.myData();
    expect(chatMessages).toHaveLength(1);
    expect(balance.points).toBe(9);
  });

  it('free points asked on both instances at once with watched countdowns earn one point', async () => {
    const m = await member();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => m.on(i).request('POST', '/api/free-point', { ticket: instance(i).adViewTicket(m.id, 29_000 + 100 * i) })));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 200), JSON.stringify(statuses)).toBe(1);
    // The others: the ticket was overtaken by the point (409), or the 30 s have not passed (429).
    for (const status of statuses.filter((s) => s !== 200)) expect([409, 429]).toContain(status);
    const { balance } = await m.myData();
    expect(balance.points).toBe(11);
    const awards = (await pair.a.store.readStream(streams.user(m.id))).filter((e) => e.type === 'FreePointAwarded');
    expect(awards).toHaveLength(1);
  });

  it('one e-mail joining on both instances at once makes one account', async () => {
    const email = `same${++n}@example.com`;
    // Each join hashes its password first, which spreads the racing requests; a store slow to
    // commit keeps the first reservation in flight while the other instance decides.
    pair.setAppendLatency(100);
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => instance(i).browser().request('POST', '/api/register-user', { email, password: 'same1' })));
      expect(answers.map((r) => r.status).sort((x, y) => x - y)).toEqual([...Array(9).fill(200), 201]);
      expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
    } finally {
      pair.setAppendLatency(0);
    }
    const registered = (await pair.b.store.readAll()).filter((e) => e.type === 'UserRegistered' && (e.data as { email: string }).email === email);
    expect(registered).toHaveLength(1);
  });

  it('one capture confirmed on both instances at once (capture and buy-points) credits once, and every answer says so', async () => {
    const m = await member();
    const order = await m.on(0).request('POST', '/api/payments/orders', { amountUsd: 5 });
    expect(order.status).toBe(201);
    const { orderId } = order.body;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => m.on(i).request('POST', i < 8 ? `/api/payments/orders/${orderId}/capture` : '/api/buy-points', i < 8 ? undefined : { orderId })),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'COMPLETED', points: 500, user: { chatCount: 510, buyed: 5 } });
    }
    const { balance, purchases } = await m.myData();
    expect(purchases).toHaveLength(1);
    expect(balance.points).toBe(510);
  });

  it('the chat limit and the wrong-password limit count the requests of both instances together', async () => {
    const m = await member(1);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => m.on(i).request('POST', '/api/chat-messages', { message: `fast ${i}` })));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 201), JSON.stringify(statuses)).toBe(CHAT_LIMIT);
    expect(count(statuses, 429)).toBe(30 - CHAT_LIMIT);
    expect((await m.myData()).chatMessages).toHaveLength(CHAT_LIMIT);

    const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => instance(i).browser().request('POST', '/api/register-user', { email: m.email, password: `bad${i}` })));
    const refused = guesses.map((r) => r.status);
    expect(count(refused, 401), JSON.stringify(refused)).toBe(PASSWORD_LIMIT);
    expect(count(refused, 429)).toBe(20 - PASSWORD_LIMIT);
    for (const h of [pair.a, pair.b]) expect((await h.browser().request('POST', '/api/register-user', { email: m.email, password: 'pass1' })).status).toBe(429);
  });
});
