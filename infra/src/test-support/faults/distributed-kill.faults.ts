import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { Browser, nextEvent } from '../client';
import { expectNothingLostOrHalfDone, roamingSocket } from './checks';
import { Cluster } from './cluster';
import { Load } from './load';
import { faultTally } from './tally';

/**
 * SIGKILL of each process of the distributed layout in turn, mid-load: command-api, the
 * projector, one of two query-api instances (PostgreSQL event store in a fresh schema, the
 * machine's Redis under a unique prefix). Each killed process is restarted on its address.
 * Socket clients of the killed query-api reconnect to the other one (as the proxy sends them)
 * and hear live events there; the projector resumes from its checkpoint. Afterwards the read
 * models equal a clean rebuild, no acknowledged event is missing, no claim is half-done after
 * the reconciler.
 */
const pgUp = await requireService('infra faults: SIGKILL distributed (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra faults: SIGKILL distributed (Redis)', testRedisUrl(), 6379);
const tally = faultTally('SIGKILL of each distributed process mid-load');

describe.skipIf(!pgUp || !redisUp)('distributed: kill -9 of each process mid-load', () => {
  const cluster = new Cluster({ redisUrl: testRedisUrl() });
  afterAll(async () => {
    const codes = await cluster.close();
    expect(codes.every((c) => c === 0)).toBe(true);
  });

  it('command-api, projector and a query-api killed in turn: nothing acknowledged lost, read models equal a clean rebuild', async () => {
    await cluster.start('command-api');
    await Promise.all([cluster.start('image-worker'), cluster.start('projector'), cluster.start('query-a'), cluster.start('query-b')]);
    const member = new Browser(cluster.url('command-api'));
    expect((await member.request('POST', '/api/register-user', { email: 'roaming@example.com', password: 'pass1' })).status).toBeLessThan(300);
    const watcher = roamingSocket([cluster.url('query-a'), cluster.url('query-b')]);
    await new Promise((r) => setTimeout(r, 500));
    expect(watcher.current().connected).toBe(true);

    const load = new Load({ origin: () => cluster.url('command-api'), clients: 10, claimEvery: 5 });
    await load.start();
    const hears = async (text: string) => {
      const deadline = Date.now() + 20_000;
      while (!watcher.current().connected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const heard = nextEvent(watcher.current(), 'chatMessage', (m) => m.message === text, 20_000);
      let sent = await member.request('POST', '/api/chat-messages', { message: text });
      while (sent.status !== 201 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 300));
        sent = await member.request('POST', '/api/chat-messages', { message: text });
      }
      expect(sent.status).toBe(201);
      await heard;
    };
    try {
      for (const name of ['command-api', 'projector', 'query-a']) {
        await load.untilAcked(40, 90_000);
        const before = load.acks.length;
        await cluster.kill(name);
        const down = Date.now();
        await new Promise((r) => setTimeout(r, 500));
        if (name === 'query-a') {
          // The socket on query-a moves to query-b before query-a comes back.
          await hears(`after killing ${name}, before its restart`);
        }
        await cluster.start(name);
        tally.note(`${name} down ms`, Date.now() - down);
        await hears(`after killing ${name}`);
        await load.untilAcked(20, 90_000);
        tally.note(`acknowledged before killing ${name}`, before);
      }
    } finally {
      await load.stop();
    }
    tally.note('socket reconnects', watcher.reconnects());
    expect(watcher.reconnects()).toBeGreaterThanOrEqual(1);
    watcher.close();

    await cluster.projectorCaughtUp(60_000);
    const { live, rebuilt, events } = await cluster.liveAndRebuilt();
    expect(live).toEqual(rebuilt);
    // Every query-api reads the same read models.
    const [a, b] = await Promise.all(['query-a', 'query-b'].map((q) => new Browser(cluster.url(q)).request('GET', '/api/main-data')));
    expect(a!.body).toEqual(b!.body);

    const store = await cluster.store();
    tally.note('events', events);
    await expectNothingLostOrHalfDone(store, load.acks, tally);
  });
});
