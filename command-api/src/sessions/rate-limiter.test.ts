import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { ActionThrottle } from './rate-limiter';

const LIMITS = {
  chatPerUser: { max: 5, windowMs: 10_000 },
  chatPerIp: { max: 8, windowMs: 10_000 },
  freePointPerUser: { max: 1, windowMs: 10_000 },
  freePointPerIp: { max: 100, windowMs: 10_000 },
  ordersPerUser: { max: 2, windowMs: 600_000 },
};

const redisReachable = await requireService('command-api: action limits script (Redis)', testRedisUrl(), 6379);

describe.skipIf(!redisReachable)('action limits in Redis: one atomic script per attempt', () => {
  const withRedis = async (test: (redis: Redis, prefix: string) => Promise<void>) => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2, enableAutoPipelining: true });
    const prefix = `test:limits-script:${randomUUID()}:`;
    try {
      await test(redis, prefix);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  };

  it('lets exactly the allowance through when attempts race from two processes, and counts nothing refused', async () => {
    await withRedis(async (redis, prefix) => {
      const one = ActionThrottle.onRedis(redis, prefix, LIMITS);
      const two = ActionThrottle.onRedis(redis, prefix, LIMITS);
      const waits = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).attempt('chat', 'u1', '198.51.100.1')));
      expect(waits.filter((w) => w === 0)).toHaveLength(5);
      for (const w of waits.filter((w) => w > 0)) expect(w).toBeLessThanOrEqual(10);
      // Refused attempts were not counted: the address used 5 of its 8.
      expect(await redis.get(`${prefix}chat:ip:198.51.100.1`)).toBe('5');
      expect(await redis.pttl(`${prefix}chat:ip:198.51.100.1`)).toBeGreaterThan(0);
    });
  });

  it('refuses on the address window alone, and without an address counts the member only', async () => {
    await withRedis(async (redis, prefix) => {
      const throttle = ActionThrottle.onRedis(redis, prefix, LIMITS);
      for (let m = 0; m < 8; m++) expect(await throttle.attempt('chat', `m${m}`, '198.51.100.2')).toBe(0);
      expect(await throttle.attempt('chat', 'm9', '198.51.100.2')).toBeGreaterThan(0);
      expect(await throttle.attempt('chat', 'm9', '198.51.100.3')).toBe(0);
      expect(await throttle.attempt('freePoint', 'm1', undefined)).toBe(0);
      expect(await throttle.attempt('freePoint', 'm1', undefined)).toBeGreaterThan(0);
    });
  });

  it('limits payment orders per member only: the address is not counted', async () => {
    await withRedis(async (redis, prefix) => {
      const throttle = ActionThrottle.onRedis(redis, prefix, LIMITS);
      expect(await throttle.attempt('orders', 'm1', '198.51.100.4')).toBe(0);
      expect(await throttle.attempt('orders', 'm1', '198.51.100.5')).toBe(0);
      const wait = await throttle.attempt('orders', 'm1', '198.51.100.6');
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(600);
      expect(await throttle.attempt('orders', 'm2', '198.51.100.4')).toBe(0);
      expect(await redis.get(`${prefix}orders:user:m1`)).toBe('2');
      expect(await redis.keys(`${prefix}*198.51.100.4`)).toEqual([]);
    });
  });
});

describe('action limits in memory: payment orders', () => {
  it('limits payment orders per member only', async () => {
    const throttle = ActionThrottle.inMemory(LIMITS);
    expect(await throttle.attempt('orders', 'm1', '198.51.100.4')).toBe(0);
    expect(await throttle.attempt('orders', 'm1', '198.51.100.5')).toBe(0);
    expect(await throttle.attempt('orders', 'm1', '198.51.100.6')).toBeGreaterThan(0);
    expect(await throttle.attempt('orders', 'm2', '198.51.100.4')).toBe(0);
  });
});
