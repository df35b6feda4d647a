import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { deleteKeysUnder } from '../read-models/redis-admin';
import { LeaderGroup } from './group';
import { RedisLease } from './lease';

const reachable = await requireService('projector: leader group (Redis)', testRedisUrl(), 6379);
const LEASE_MS = 600;

/** A group member whose leading is recorded: when it started and stopped, by epoch. */
function member(redis: Redis, root: string, instance: string, log: string[]) {
  const lease = new RedisLease(redis, root, instance, LEASE_MS);
  const registry = new Registry();
  const group = new LeaderGroup({
    lease,
    logger: pino({ level: 'silent' }),
    registry,
    lead: async (epoch) => {
      log.push(`${instance} leads ${epoch}`);
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

  it('has one leader; a graceful stop hands over at once, with a higher epoch', async () => {
    const root = newRoot();
    const log: string[] = [];
    const a = member(redis, root, 'a', log);
    a.group.start();
    await vi.waitFor(() => expect(a.group.status().role).toBe('leader'));
    const b = member(redis, root, 'b', log);
    b.group.start();
    await vi.waitFor(() => expect(b.group.status().holder).toBe('a'));
    expect(b.group.status()).toMatchObject({ instance: 'b', role: 'standby', holder: 'a', epoch: 1, leaseMs: LEASE_MS });
    const stopped = Date.now();
    await a.group.stop();
    await vi.waitFor(() => expect(b.group.status().role).toBe('leader'));
    // Released, not run out: the standby takes it at its next try, a third of the lease.
    expect(Date.now() - stopped).toBeLessThan(LEASE_MS);
    expect(log).toEqual(['a leads 1', 'a stops 1', 'b leads 2']);
    expect(await b.registry.getSingleMetricAsString('pass_projector_leader')).toContain('pass_projector_leader 1');
    await b.group.stop();
  });

  it('stands a leader down once its renewals fail past the lease, and a standby leads meanwhile', async () => {
    const root = newRoot();
    const log: string[] = [];
    const a = member(redis, root, 'a', log);
    a.group.start();
    await vi.waitFor(() => expect(a.group.status().role).toBe('leader'));
    const b = member(redis, root, 'b', log);
    b.group.start();
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
});
