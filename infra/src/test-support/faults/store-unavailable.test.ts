import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { Browser, nextEvent } from '../client';
import { expectNothingLostOrHalfDone } from './checks';
import { Cluster } from './cluster';
import { Load } from './load';
import { faultTally } from './tally';
import { TcpProxy } from './tcp-proxy';

/**
 * The event store unavailable: a TCP proxy between every service and PostgreSQL is cut, first
 * with resets (a server gone), then as a black hole (a partition: connections hang). While cut,
 * commands answer 503 `{ error }` within a bounded time; when restored, commands succeed again,
 * the projector's subscription resumes and a socket client on query-api stays connected and
 * receives live events. Afterwards: acknowledged commands all stored, read models equal a clean
 * rebuild, no claim half-done after the reconciler. (Standalone's PGlite is embedded in the
 * process: there is no connection to lose, so this case does not apply to it.)
 */
const pgUp = await requireService('infra faults: event store unavailable (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra faults: event store unavailable (Redis)', testRedisUrl(), 6379);
const tally = faultTally('event store unavailable (PostgreSQL behind a cut proxy)');
const BOUND_MS = 15_000;

describe.skipIf(!pgUp || !redisUp)('event store unavailable', () => {
  const pgTarget = new URL(testPostgresUrl());
  const proxy = new TcpProxy({ host: pgTarget.hostname, port: Number(pgTarget.port || 5432) });
  let cluster: Cluster;
  afterAll(async () => {
    proxy.restore();
    await cluster?.close();
    await proxy.close();
  });

  it('commands get 503 within a bound while cut, everything resumes when restored', { timeout: 150_000 }, async () => {
    await proxy.start();
    cluster = new Cluster({ redisUrl: testRedisUrl(), pgHostPort: `127.0.0.1:${proxy.port}` });
    await cluster.start('command-api');
    await Promise.all([cluster.start('image-worker'), cluster.start('projector'), cluster.start('query-a')]);

    // A member whose command is timed during the cut, and a socket watching query-api.
    const member = new Browser(cluster.url('command-api'));
    expect((await member.request('POST', '/api/register-user', { email: 'cut@example.com', password: 'pass1' })).status).toBeLessThan(300);
    const watcher = new Browser(cluster.url('query-a'));
    const socket = await watcher.socket();
    let disconnects = 0;
    socket.on('disconnect', () => (disconnects += 1));

    const load = new Load({ origin: () => cluster.url('command-api'), clients: 8, claimEvery: 5, timeoutMs: 30_000 });
    await load.start();
    const outage = async (cut: () => void, label: string) => {
      await load.untilAcked(25);
      cut();
      const started = Date.now();
      const answer = await member.request('POST', '/api/chat-messages', { message: `during ${label}` });
      const tookMs = Date.now() - started;
      tally.note(`${label}: 503 after ms`, tookMs);
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ error: expect.any(String) });
      expect(tookMs).toBeLessThan(BOUND_MS);
      await new Promise((r) => setTimeout(r, 2_000));
      proxy.restore();
      // Commands succeed again.
      const deadline = Date.now() + BOUND_MS * 2;
      let after = await member.request('POST', '/api/chat-messages', { message: `after ${label}` });
      while (after.status !== 201 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        after = await member.request('POST', '/api/chat-messages', { message: `after ${label}` });
      }
      expect(after.status).toBe(201);
      // The subscription resumed: the message reaches the socket on query-api.
      const live = nextEvent(socket, 'chatMessage', (m) => m.message === `live after ${label}`, 20_000);
      expect((await member.request('POST', '/api/chat-messages', { message: `live after ${label}` })).status).toBe(201);
      await live;
    };
    try {
      await outage(() => proxy.reset(), 'reset');
      await outage(() => proxy.blackhole(), 'black hole');
      await load.untilAcked(25);
    } finally {
      await load.stop();
    }
    expect(socket.connected).toBe(true);
    tally.note('socket disconnects', disconnects);
    watcher.close();
    tally.note('503 answers', load.refused.get(503) ?? 0);
    expect([...load.refused.keys()].filter((s) => s >= 500 && s !== 503 && s !== 504)).toEqual([]);

    await cluster.projectorCaughtUp();
    const { live, rebuilt, events } = await cluster.liveAndRebuilt();
    expect(live).toEqual(rebuilt);

    const store = await cluster.store();
    tally.note('events', events);
    await expectNothingLostOrHalfDone(store, load.acks, tally);
  });
});
