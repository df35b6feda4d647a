import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl } from '@pass/events/test-support';
import { Browser, nextEvent } from '../client';
import { halfDoneClaims, reconcileAsIfLater } from './checks';
import { Cluster } from './cluster';
import { doubledAcks, Load, missingAcks, readEverything } from './load';
import { OwnRedis } from './redis-server';
import { faultTally } from './tally';

/**
 * Redis restarted mid-load, under the distributed layout (command-api, projector, two
 * query-api on PostgreSQL). Redis holds sessions, login and action counters, the read models
 * with their checkpoint, the Socket.IO channel and the job queues. What users see:
 * - Redis with AOF (appendfsync everysec, as infra/deploy/compose.yaml runs it): sessions
 *   survive and members stay signed in (a session opened in the last second before a crash may
 *   be lost: 401, sign in again); read-model writes of that last second are lost together with
 *   their checkpoint (one Lua script), and the projector, finding the checkpoint behind where it
 *   left it, re-projects from there.
 * - Redis without persistence: sessions are gone, so the next request answers 401 and the
 *   member signs in again (the web sends them to the sign-in form); the read models and their
 *   checkpoint are gone, so the projector re-projects the whole store from position 0.
 * Either way, commands succeed again within seconds, the read models end equal to a clean
 * rebuild and no acknowledged event is missing.
 */
const pgUp = await requireService('infra faults: Redis restart (PostgreSQL)', testPostgresUrl(), 5432);
const tally = faultTally('Redis restart mid-load (own redis-server)');

describe.skipIf(!pgUp).each([
  { aof: true, label: 'with AOF: sessions and read models survive' },
  { aof: false, label: 'without persistence: 401 and sign in again; the projector re-projects from 0' },
])('Redis restarted mid-load, $label', ({ aof }) => {
  const redis = new OwnRedis(aof);
  let cluster: Cluster | undefined;
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await cluster?.close();
    await redis.close();
  });

  it('services recover, nothing acknowledged is lost, read models equal a clean rebuild', async () => {
    await redis.start();
    cluster = new Cluster({ redisUrl: redis.url });
    await cluster.start('command-api');
    await Promise.all([cluster.start('image-worker'), cluster.start('projector'), cluster.start('query-a'), cluster.start('query-b')]);
    const c = cluster;

    const member = new Browser(c.url('command-api'));
    const credentials = { email: 'redis-restart@example.com', password: 'pass1' };
    expect((await member.request('POST', '/api/register-user', credentials)).status).toBeLessThan(300);
    const reader = new Browser(c.url('query-a'));
    for (const [k, v] of member.cookies) reader.cookies.set(k, v);
    expect((await reader.request('GET', '/api/me')).status).toBe(200);

    const load = new Load({ origin: () => c.url('command-api'), clients: 8, claimEvery: 5 });
    await load.start();
    try {
      await load.untilAcked(60);
      await redis.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 1_500));
      await redis.start();
      const restartedAt = Date.now();
      await load.untilAcked(1, 60_000);
      tally.note(aof ? 'AOF: first command acknowledged after restart, ms' : 'no persistence: first command acknowledged after restart, ms', Date.now() - restartedAt);
      await load.untilAcked(40, 60_000);
      tally.note(aof ? 'AOF: sign-ins again' : 'no persistence: sign-ins again', load.relogins);
    } finally {
      await load.stop();
    }

    // What the member sees after the restart.
    const me = await reader.request('GET', '/api/me');
    const point = await member.request('POST', '/api/free-point');
    if (aof) {
      expect(me.status).toBe(200);
      expect(point.status).not.toBe(401);
    } else {
      expect(me.status).toBe(401);
      expect(point.status).toBe(401);
      expect((await member.request('POST', '/api/register-user', credentials)).status).toBe(200);
      expect((await member.request('POST', '/api/free-point')).status).not.toBe(401);
    }

    // Live events flow again through the Redis adapter: a socket on query-b hears a chat sent now.
    const socket = await new Browser(c.url('query-b')).socket();
    const heard = nextEvent(socket, 'chatMessage', (m) => m.message === 'after the Redis restart', 20_000);
    expect((await member.request('POST', '/api/chat-messages', { message: 'after the Redis restart' })).status).toBe(201);
    await heard;
    socket.disconnect();

    await c.projectorCaughtUp(60_000);
    const { live, rebuilt, events } = await c.liveAndRebuilt();
    expect(live).toEqual(rebuilt);

    const store = await c.store();
    const all = await readEverything(store);
    const { missing, checked } = missingAcks(load.acks, all);
    tally.lost(missing.length);
    tally.note('acknowledged commands', checked);
    tally.note('events', events);
    expect(missing).toEqual([]);
    expect(doubledAcks(load.acks, all)).toEqual([]);
    await reconcileAsIfLater(store);
    expect(halfDoneClaims(await readEverything(store)).pending).toEqual([]);
  });
});

/**
 * The race the case above can miss: Redis restarts empty while the projector is idle (no call
 * in flight fails), so the projector still believes in its old position. The next batch must
 * not be applied on top of nothing: the projector sees the lost checkpoint and re-projects
 * from 0.
 */
describe.skipIf(!pgUp)('Redis restarted empty while the projector is idle', () => {
  const redis = new OwnRedis(false);
  let cluster: Cluster | undefined;
  afterAll(async () => {
    await cluster?.close();
    await redis.close();
  });

  it('the next event makes the projector re-project from 0; read models equal a clean rebuild', async () => {
    await redis.start();
    cluster = new Cluster({ redisUrl: redis.url });
    await cluster.start('command-api');
    await Promise.all([cluster.start('image-worker'), cluster.start('projector'), cluster.start('query-a')]);
    const c = cluster;
    const load = new Load({ origin: () => c.url('command-api'), clients: 4 });
    await load.start();
    try {
      await load.untilAcked(30);
    } finally {
      await load.stop();
    }
    await c.projectorCaughtUp();
    await redis.kill('SIGKILL');
    await redis.start();
    await new Promise((r) => setTimeout(r, 1_500)); // every connection is back

    const member = new Browser(c.url('command-api'));
    expect((await member.request('POST', '/api/register-user', { email: 'idle@example.com', password: 'pass1' })).status).toBeLessThan(300);
    await c.projectorCaughtUp(30_000);
    const { live, rebuilt, events } = await c.liveAndRebuilt();
    expect(live.rows).toHaveLength(rebuilt.rows.length);
    expect(live).toEqual(rebuilt);
    const { missing, checked } = missingAcks(load.acks, await readEverything(await c.store()));
    tally.lost(missing.length);
    tally.note('acknowledged commands', checked);
    tally.note('events', events);
    expect(missing).toEqual([]);
  });
});

/**
 * The same after an admin rebuild: readers then use a keyspace other than the first one, and
 * an empty Redis has forgotten which. Readers and the projector must meet on one keyspace again.
 */
describe.skipIf(!pgUp)('Redis restarted empty after an admin rebuild', () => {
  const redis = new OwnRedis(false);
  let cluster: Cluster | undefined;
  afterAll(async () => {
    await cluster?.close();
    await redis.close();
  });

  it('readers and the projector end on the same keyspace, equal to a clean rebuild', async () => {
    await redis.start();
    cluster = new Cluster({ redisUrl: redis.url, env: { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-pass-123' } });
    await cluster.start('command-api');
    await Promise.all([cluster.start('image-worker'), cluster.start('projector'), cluster.start('query-a')]);
    const c = cluster;
    const load = new Load({ origin: () => c.url('command-api'), clients: 4 });
    await load.start();
    try {
      await load.untilAcked(20);
    } finally {
      await load.stop();
    }
    const admin = new Browser(c.url('command-api'));
    expect((await admin.request('POST', '/api/admin-login', { email: 'admin@example.com', password: 'admin-pass-123' })).status).toBe(200);
    const adminOnQuery = new Browser(c.url('query-a'));
    for (const [k, v] of admin.cookies) adminOnQuery.cookies.set(k, v);
    expect((await adminOnQuery.request('POST', '/api/admin/projections/rebuild')).status).toBe(202);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = (await adminOnQuery.request('GET', '/api/admin/projections')).body;
      if (s.rebuild?.state === 'idle' && s.rebuild.startedAt) break;
      if (Date.now() > deadline) throw new Error(`rebuild did not finish: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await c.projectorCaughtUp();

    await redis.kill('SIGKILL');
    await redis.start();
    await new Promise((r) => setTimeout(r, 1_500));
    const member = new Browser(c.url('command-api'));
    expect((await member.request('POST', '/api/register-user', { email: 'after-rebuild@example.com', password: 'pass1' })).status).toBeLessThan(300);
    await c.projectorCaughtUp(30_000);
    const { live, rebuilt, events } = await c.liveAndRebuilt();
    expect(live.rows).toHaveLength(rebuilt.rows.length);
    expect(live).toEqual(rebuilt);
    // What a reader gets through query-api.
    const main = (await new Browser(c.url('query-a')).request('GET', '/api/main-data')).body;
    expect(main.globalMessages).toBe(rebuilt.main.globalMessages);
    const { missing } = missingAcks(load.acks, await readEverything(await c.store()));
    tally.lost(missing.length);
    tally.note('events', events);
    expect(missing).toEqual([]);
  });
});
