import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { deleteKeysUnder } from '../read-models/redis-admin';
import { LeaderGroup, type Building } from './group';
import { RedisLease } from './lease';
import { readLeadership } from './roster';
import { ProjectionVersions } from './versions';

const reachable = await requireService('projector: leader group (Redis)', testRedisUrl(), 6379);
const LEASE_MS = 600;

/**
 * A group member whose leading is recorded: when it started and stopped, by epoch, and with
 * which built keyspace. With `version`, it takes part in blue/green upgrades: the readers'
 * keyspace is `ks0`, and a build catches up after `buildMs`.
 */
function member(redis: Redis, root: string, instance: string, log: string[], version?: { fingerprint: string; buildMs: number }) {
  const lease = new RedisLease(redis, root, instance, LEASE_MS);
  const registry = new Registry();
  const upgrades = version && {
    versions: new ProjectionVersions(redis, root, version.fingerprint),
    builderLease: new RedisLease(redis, root, instance, LEASE_MS, `build:${version.fingerprint}`),
    activeId: async () => 'ks0',
    build: async (): Promise<Building> => {
      log.push(`${instance} builds`);
      const started = Date.now();
      return { keyspaceId: `bg-${version.fingerprint}`, caughtUp: () => Date.now() - started >= version.buildMs, stop: async () => undefined };
    },
  };
  const group = new LeaderGroup({
    lease,
    logger: pino({ level: 'silent' }),
    registry,
    roster: { redis, root },
    ...(upgrades ? { upgrades } : {}),
    lead: async (epoch, built) => {
      log.push(`${instance} leads ${epoch}${built ? ` with ${built.keyspaceId}` : ''}`);
      return { stop: async () => void log.push(`${instance} stops ${epoch}`) };
    },
  });
  return { lease, group, registry };
}

describe.skipIf(!reachable)('projector leader group', () => {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await deleteKeysUnder(redis, root);
    redis.disconnect();
  });
  const newRoot = () => (roots.push(`test:group:${randomUUID()}`), roots.at(-1)!);

  /** Members `a` (leading) and `b` (started once `a` leads) of a fresh group. */
  async function leaderAndStandby(log: string[]) {
    const root = newRoot();
    const a = member(redis, root, 'a', log);
    a.group.start();
    await vi.waitFor(() => expect(a.group.status().role).toBe('leader'));
    const b = member(redis, root, 'b', log);
    b.group.start();
    return { root, a, b };
  }

  it('has one leader; a graceful stop hands over at once, with a higher epoch', async () => {
    const log: string[] = [];
    const { root, a, b } = await leaderAndStandby(log);
    await vi.waitFor(() => expect(b.group.status().holder).toBe('a'));
    expect(b.group.status()).toMatchObject({ instance: 'b', role: 'standby', holder: 'a', epoch: 1, leaseMs: LEASE_MS });
    // What the admin's panel reads: the lease's holder and epoch, and each member's role.
    await vi.waitFor(async () =>
      expect(await readLeadership(redis, root)).toMatchObject({
        holder: 'a',
        epoch: 1,
        members: [
          { instance: 'a', role: 'leader' },
          { instance: 'b', role: 'standby' },
        ],
      }),
    );
    const stopped = Date.now();
    await a.group.stop();
    await vi.waitFor(() => expect(b.group.status().role).toBe('leader'));
    // Released, not run out: the standby takes it at its next try, a third of the lease.
    expect(Date.now() - stopped).toBeLessThan(LEASE_MS);
    expect(log).toEqual(['a leads 1', 'a stops 1', 'b leads 2']);
    await vi.waitFor(async () => expect(await readLeadership(redis, root)).toMatchObject({ holder: 'b', epoch: 2, members: [{ instance: 'b', role: 'leader' }] }));
    expect(await b.registry.getSingleMetricAsString('pass_projector_leader')).toContain('pass_projector_leader 1');
    await b.group.stop();
  });

  it('stands a leader down once its renewals fail past the lease, and a standby leads meanwhile', async () => {
    const log: string[] = [];
    const { a, b } = await leaderAndStandby(log);
    // Cut off from Redis: a cannot renew, and must not count on the lease past its time.
    const renew = vi.spyOn(a.lease, 'renew').mockRejectedValue(new Error('connection lost'));
    await vi.waitFor(() => expect(b.group.status().role).toBe('leader'), { timeout: 3 * LEASE_MS });
    expect(a.group.status().role).toBe('standby');
    expect(a.lease.holds()).toBe(false);
    expect(log.indexOf('a stops 1')).toBeGreaterThanOrEqual(0);
    expect(await a.registry.getSingleMetricAsString('pass_projector_lease_lost_total')).toContain('pass_projector_lease_lost_total 1');
    renew.mockRestore();
    await vi.waitFor(() => expect(a.group.status().holder).toBe('b'));
    expect(a.group.status().role).toBe('standby');
    await Promise.all([a.group.stop(), b.group.stop()]);
  });

  it('a standby of another projection version builds beside the leader, then takes over with its keyspace', async () => {
    const root = newRoot();
    const log: string[] = [];
    const old = member(redis, root, 'old', log, { fingerprint: 'v1', buildMs: 0 });
    old.group.start();
    await vi.waitFor(() => expect(old.group.status().role).toBe('leader'));
    // The leader marks the readers' keyspace as its version's.
    await vi.waitFor(async () => expect(await new ProjectionVersions(redis, root, 'v1').fingerprintOf('ks0')).toBe('v1'));
    const next = member(redis, root, 'next', log, { fingerprint: 'v2', buildMs: 3 * LEASE_MS });
    next.group.start();
    await vi.waitFor(() => expect(next.group.status().role).toBe('builder'));
    expect(old.group.status().role).toBe('leader');
    await vi.waitFor(() => expect(next.group.status().role).toBe('leader'), { timeout: 6 * LEASE_MS });
    expect(old.group.status().role).toBe('standby');
    expect(log).toEqual(['old leads 1', 'next builds', 'old stops 1', 'next leads 3 with bg-v2']);
    // While the new version leads, the old one neither leads nor builds.
    await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
    expect(old.group.status().role).toBe('standby');
    await Promise.all([old.group.stop(), next.group.stop()]);
  });
});
