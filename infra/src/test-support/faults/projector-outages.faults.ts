import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { expectNothingLostOrHalfDone } from './checks';
import { Cluster } from './cluster';
import { Load } from './load';
import { OwnRedis } from './redis-server';
import { faultTally } from './tally';
import { TcpProxy } from './tcp-proxy';

/**
 * Outages around a projector failover, under load, with two projectors: Redis (with AOF)
 * restarted while the standby takes over from a killed leader; PostgreSQL cut (connections
 * reset) during the takeover; and the leader cut off from Redis alone (a partition) while it
 * keeps running, so that two processes believe they lead until the cut one learns otherwise.
 * Each time one projector leads afterwards, the read models equal a clean rebuild and nothing
 * acknowledged is lost.
 */
const pgUp = await requireService('infra faults: projector outages (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra faults: projector outages (Redis)', testRedisUrl(), 6379);
const tally = faultTally('outages during a projector failover');
const LEASE_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function leadership(cluster: Cluster, name: string): Promise<{ role: string; holder: string | null; epoch: number }> {
  return ((await (await fetch(`${cluster.url(name)}/status`)).json()) as { leadership: { role: string; holder: string | null; epoch: number } }).leadership;
}

/** The one projector that says it leads, once exactly one does. */
async function soleLeader(cluster: Cluster, names: string[], timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const roles = await Promise.all(names.map((name) => leadership(cluster, name).then((l) => l.role, () => 'down')));
    const leaders = names.filter((_, i) => roles[i] === 'leader');
    if (leaders.length === 1) return leaders[0]!;
    if (Date.now() > deadline) throw new Error(`leaders after ${timeoutMs} ms: ${leaders.join(', ') || 'none'}`);
    await sleep(100);
  }
}

/** Starts command-api, query-a and two projectors (a first, so it leads) on `cluster`, and a load. */
async function twoProjectorsUnderLoad(cluster: Cluster, projectorA: Record<string, string> = {}): Promise<Load> {
  await cluster.start('command-api');
  await cluster.start('projector-a', projectorA);
  await soleLeader(cluster, ['projector-a']);
  await Promise.all([cluster.start('projector-b'), cluster.start('query-a')]);
  const load = new Load({ origin: () => cluster.url('command-api'), clients: 6, claimEvery: 5 });
  await load.start();
  await load.untilAcked(20, 60_000);
  return load;
}

async function expectWhole(cluster: Cluster, load: Load): Promise<void> {
  await load.stop();
  await cluster.projectorCaughtUp(60_000);
  const { live, rebuilt, events } = await cluster.liveAndRebuilt();
  expect(live).toEqual(rebuilt);
  tally.note('events', events);
  await expectNothingLostOrHalfDone(await cluster.store(), load.acks, tally);
}

describe.skipIf(!pgUp)('distributed: Redis restarted (AOF) during a projector failover', () => {
  const redis = new OwnRedis(true);
  let cluster: Cluster | undefined;
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await cluster?.close();
    await redis.close();
  });

  it('one projector leads afterwards and the read models are whole', async () => {
    await redis.start();
    cluster = new Cluster({ redisUrl: redis.url, env: { PROJECTOR_LEASE_MS: String(LEASE_MS) } });
    const load = await twoProjectorsUnderLoad(cluster);
    await cluster.kill('projector-a');
    await sleep(LEASE_MS / 4);
    await redis.kill('SIGKILL');
    await sleep(1_500);
    await redis.start();
    tally.note('Redis: leader after the restart', await soleLeader(cluster, ['projector-b']));
    await cluster.start('projector-a');
    await load.untilAcked(20, 60_000);
    expect(await soleLeader(cluster, ['projector-a', 'projector-b'])).toBe('projector-b');
    await expectWhole(cluster, load);
  }, 180_000);
});

describe.skipIf(!pgUp || !redisUp)('distributed: PostgreSQL cut during a projector failover', () => {
  const target = new URL(testPostgresUrl());
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  let cluster: Cluster | undefined;
  afterAll(async () => {
    proxy.restore();
    await cluster?.close();
    await proxy.close();
  });

  it('the standby leads, catches up once the store answers, and the read models are whole', async () => {
    await proxy.start();
    cluster = new Cluster({ redisUrl: testRedisUrl(), pgHostPort: `127.0.0.1:${proxy.port}`, env: { PROJECTOR_LEASE_MS: String(LEASE_MS) } });
    const load = await twoProjectorsUnderLoad(cluster);
    await cluster.kill('projector-a');
    proxy.reset();
    await sleep(2 * LEASE_MS);
    proxy.restore();
    tally.note('PostgreSQL: leader after the cut', await soleLeader(cluster, ['projector-b']));
    await load.untilAcked(20, 60_000);
    await expectWhole(cluster, load);
  }, 180_000);
});

describe.skipIf(!pgUp || !redisUp)('distributed: the leader cut off from Redis alone', () => {
  const target = new URL(testRedisUrl());
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  let cluster: Cluster | undefined;
  afterAll(async () => {
    proxy.restore();
    await cluster?.close();
    await proxy.close();
  });

  it('the other leads meanwhile; reconnected, the cut one finds a newer epoch and stands by', async () => {
    await proxy.start();
    cluster = new Cluster({ redisUrl: testRedisUrl(), env: { PROJECTOR_LEASE_MS: String(LEASE_MS) } });
    const load = await twoProjectorsUnderLoad(cluster, { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
    const before = await leadership(cluster, 'projector-b');
    proxy.blackhole();
    expect(await soleLeader(cluster, ['projector-b'], 3 * LEASE_MS)).toBe('projector-b');
    await load.untilAcked(15, 60_000);
    proxy.restore();
    await sleep(2 * LEASE_MS);
    expect(await leadership(cluster, 'projector-a')).toMatchObject({ role: 'standby', holder: 'projector-b' });
    expect((await leadership(cluster, 'projector-b')).epoch).toBeGreaterThan(before.epoch);
    const metrics = await (await fetch(`${cluster.url('projector-a')}/metrics`)).text();
    expect(metrics).toMatch(/pass_projector_lease_lost_total(\{[^}]*\})? 1/);
    await expectWhole(cluster, load);
  }, 180_000);
});
