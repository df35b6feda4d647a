import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { Browser } from '../client';
import { expectNothingLostOrHalfDone } from './checks';
import { Cluster } from './cluster';
import { Load, readEverything } from './load';
import { faultTally } from './tally';

/**
 * Two command-api instances behind a front that sends each request to one that is up, under a
 * load of joins, purchases, chat, free points and claims: one is SIGKILLed with requests in
 * flight. Its twin serves meanwhile, and afterwards nothing acknowledged is missing and no claim
 * is half-done.
 */
const pgUp = await requireService('infra faults: command-api twins (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra faults: command-api twins (Redis)', testRedisUrl(), 6379);
const tally = faultTally('command-api killed mid-request with its twin serving');

describe.skipIf(!pgUp || !redisUp)('distributed: two command-apis, one killed', () => {
  const cluster = new Cluster({ redisUrl: testRedisUrl() });
  afterAll(async () => {
    const codes = await cluster.close();
    expect(codes.every((c) => c === 0)).toBe(true);
  });

  it('the twin acknowledges commands while the other is down; nothing acknowledged is lost', async () => {
    await Promise.all([cluster.start('command-api'), cluster.start('command-api-2')]);
    await Promise.all([cluster.start('projector'), cluster.start('image-worker')]);
    const up = new Set(['command-api', 'command-api-2']);
    let turn = 0;
    // The front: round robin over the instances that are up.
    const origin = () => cluster.url([...up][turn++ % up.size]!);
    const load = new Load({ origin, clients: 8, claimEvery: 5, stepMs: 100 });
    await load.start();
    const joins = Array.from({ length: 5 }, (_, i) => ({ email: `cut${i}@example.com`, password: 'pass1' }));
    try {
      await load.untilAcked(40, 60_000);
      // Joins in flight (a password hash takes tens of ms) when the process dies.
      const cut = joins.map((body) => new Browser(cluster.url('command-api')).request('POST', '/api/register-user', body).then((r) => r.status, () => 0));
      await new Promise((r) => setTimeout(r, 20));
      await cluster.kill('command-api');
      up.delete('command-api');
      const ackedAtKill = load.acks.length;
      tally.note('joins cut by the kill', (await Promise.all(cut)).filter((status) => status === 0).length);
      // Asked again on the twin, as a browser would: each is one account, stored or not before the kill.
      for (const body of joins) expect([200, 201]).toContain((await new Browser(cluster.url('command-api-2')).request('POST', '/api/register-user', body)).status);
      await load.untilAcked(30, 60_000);
      tally.note('acknowledged by the twin while the other was down', load.acks.length - ackedAtKill);
      await cluster.start('command-api');
      up.add('command-api');
      await load.untilAcked(20, 60_000);
    } finally {
      await load.stop();
    }
    const store = await cluster.store();
    await expectNothingLostOrHalfDone(store, load.acks, tally);
    const accounts = (await readEverything(store)).filter((e) => e.type === 'UserRegistered' && String((e.data as { email?: string }).email).startsWith('cut'));
    expect(accounts).toHaveLength(joins.length);
  }, 120_000);
});
