import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { Browser, nextEvent } from '../client';
import { expectNothingLostOrHalfDone, roamingSocket } from './checks';
import { Cluster } from './cluster';
import { Load } from './load';
import { faultTally } from './tally';

/**
 * Two projectors as a hot/standby group under a steady load of commands: the leader SIGKILLed,
 * then the new leader SIGSTOPped past its lease and resumed. A standby leads within the lease,
 * live pushes resume, query-api stays ready, the paused leader learns it lost and stands by, and
 * the read models afterwards equal a clean rebuild with nothing acknowledged lost.
 */
const pgUp = await requireService('infra faults: projector failover (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra faults: projector failover (Redis)', testRedisUrl(), 6379);
const tally = faultTally('projector failover: SIGKILL and SIGSTOP of the leader');
const LEASE_MS = 2_000;

interface Leadership {
  instance: string;
  role: 'leader' | 'standby';
  holder: string | null;
  epoch: number;
}

describe.skipIf(!pgUp || !redisUp)('distributed: projectors as a hot/standby group', () => {
  const cluster = new Cluster({ redisUrl: testRedisUrl(), env: { PROJECTOR_LEASE_MS: String(LEASE_MS) } });
  afterAll(async () => {
    const codes = await cluster.close();
    expect(codes.every((c) => c === 0)).toBe(true);
  });

  const leadership = async (name: string): Promise<Leadership> =>
    ((await (await fetch(`${cluster.url(name)}/status`)).json()) as { leadership: Leadership }).leadership;
  const untilLeads = async (name: string, timeoutMs: number): Promise<number> => {
    const started = Date.now();
    while ((await leadership(name)).role !== 'leader') {
      if (Date.now() - started > timeoutMs) throw new Error(`${name} did not lead within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return Date.now() - started;
  };
  /** Polls query-api's /readyz until `done` resolves; the statuses other than 200 it saw. */
  const readinessDuring = async (done: Promise<unknown>): Promise<number[]> => {
    const seen: number[] = [];
    let over = false;
    void done.finally(() => (over = true));
    while (!over) {
      const status = await fetch(`${cluster.url('query-a')}/readyz`).then((r) => r.status, () => 0);
      if (status !== 200) seen.push(status);
      await new Promise((r) => setTimeout(r, 100));
    }
    return seen;
  };

  it('a killed leader is replaced within the lease; a paused one is fenced and stands by', async () => {
    await cluster.start('command-api');
    await cluster.start('projector-a');
    await untilLeads('projector-a', 10_000);
    await Promise.all([cluster.start('projector-b'), cluster.start('query-a')]);
    expect(await leadership('projector-b')).toMatchObject({ role: 'standby', holder: 'projector-a', epoch: 1 });
    const member = new Browser(cluster.url('command-api'));
    expect((await member.request('POST', '/api/register-user', { email: 'watcher@example.com', password: 'pass1' })).status).toBeLessThan(300);
    const watcher = roamingSocket([cluster.url('query-a')]);
    const hears = async (text: string) => {
      const heard = nextEvent(watcher.current(), 'chatMessage', (m) => m.message === text, 15_000);
      expect((await member.request('POST', '/api/chat-messages', { message: text })).status).toBe(201);
      await heard;
    };
    await hears('before the failover');

    const load = new Load({ origin: () => cluster.url('command-api'), clients: 6, claimEvery: 5 });
    await load.start();
    try {
      await load.untilAcked(15, 60_000);
      await cluster.kill('projector-a');
      const takeover = untilLeads('projector-b', 3 * LEASE_MS);
      expect(await readinessDuring(takeover)).toEqual([]);
      tally.note('SIGKILL: standby leads after ms', await takeover);
      expect(await leadership('projector-b')).toMatchObject({ holder: 'projector-b', epoch: 2 });
      await hears('after the leader was killed');

      await cluster.start('projector-a');
      await load.untilAcked(10, 60_000);
      cluster.signal('projector-b', 'SIGSTOP');
      const paused = Date.now();
      tally.note('SIGSTOP: standby leads after ms', await untilLeads('projector-a', 3 * LEASE_MS));
      await load.untilAcked(10, 60_000);
      await new Promise((r) => setTimeout(r, Math.max(0, 2 * LEASE_MS - (Date.now() - paused))));
      cluster.signal('projector-b', 'SIGCONT');
      await hears('after the leader was paused');
      await new Promise((r) => setTimeout(r, LEASE_MS));
      expect(await leadership('projector-b')).toMatchObject({ role: 'standby', holder: 'projector-a', epoch: 3 });
      await hears('after the paused leader woke');
      await load.untilAcked(10, 60_000);
    } finally {
      await load.stop();
    }
    watcher.close();

    await cluster.projectorCaughtUp(60_000);
    const { live, rebuilt, events } = await cluster.liveAndRebuilt();
    expect(live).toEqual(rebuilt);
    tally.note('events', events);
    await expectNothingLostOrHalfDone(await cluster.store(), load.acks, tally);
  }, 180_000);
});
