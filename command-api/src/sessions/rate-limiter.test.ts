import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { DomainError, isDomainError } from '@pass/events';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { ActionThrottle, DEFAULT_LOGIN_LIMITS, LoginThrottle, type LoginLimits } from './rate-limiter';

const LIMITS = {
  chatPerUser: { max: 5, windowMs: 10_000 },
  chatPerIp: { max: 8, windowMs: 10_000 },
  freePointPerUser: { max: 1, windowMs: 10_000 },
  freePointPerIp: { max: 100, windowMs: 10_000 },
  ordersPerUser: { max: 2, windowMs: 600_000 },
};

const redisReachable = await requireService('command-api: action limits script (Redis)', testRedisUrl(), 6379);

describe.skipIf(!redisReachable)('action limits in Redis: atomic across processes', () => {
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

  it('counts the member and the address in one round trip, in the library’s own keys, and gives a member refused by the address their point back', async () => {
    await withRedis(async (redis, prefix) => {
      const throttle = ActionThrottle.onRedis(redis, prefix, LIMITS);
      // The first call may load the script (NOSCRIPT, then EVAL): count from the second one.
      expect(await throttle.attempt('chat', 'first', '198.51.100.7')).toBe(0);
      const sent = vi.spyOn(redis, 'sendCommand');
      expect(await throttle.attempt('chat', 'member', '198.51.100.8')).toBe(0);
      expect(sent).toHaveBeenCalledTimes(1);
      sent.mockRestore();
      // As rate-limiter-flexible keeps them: a count per key, expiring with the key's window.
      expect(await redis.get(`${prefix}chat:user:member`)).toBe('1');
      expect(await redis.get(`${prefix}chat:ip:198.51.100.8`)).toBe('1');
      for (const key of [`${prefix}chat:user:member`, `${prefix}chat:ip:198.51.100.8`]) {
        const ttl = await redis.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(10_000);
      }
      // The address's window fills up (8): the next member is refused there and keeps their allowance.
      for (let m = 1; m < 8; m++) expect(await throttle.attempt('chat', `m${m}`, '198.51.100.8')).toBe(0);
      const wait = await throttle.attempt('chat', 'late', '198.51.100.8');
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(10);
      expect(await redis.get(`${prefix}chat:user:late`)).toBe('0');
      for (let i = 0; i < 5; i++) expect(await throttle.attempt('chat', 'late', `198.51.100.${20 + i}`)).toBe(0);
      expect(await throttle.attempt('chat', 'late', '198.51.100.30')).toBeGreaterThan(0);
      // A member over their own limit does not touch the address.
      expect(await redis.get(`${prefix}chat:ip:198.51.100.30`)).toBeNull();
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
      expect(await redis.keys(`${prefix}*198.51.100.4`)).toEqual([]);
    });
  });
});

describe('action limits in memory', () => {
  it('lets exactly the allowance through when a burst arrives at once', async () => {
    const throttle = ActionThrottle.inMemory(LIMITS);
    const waits = await Promise.all(Array.from({ length: 20 }, () => throttle.attempt('chat', 'u1', '198.51.100.1')));
    expect(waits.filter((w) => w === 0)).toHaveLength(5);
    for (const w of waits.filter((w) => w > 0)) expect(w).toBeLessThanOrEqual(10);
    // The member's refused attempts did not use the address's allowance: 3 of its 8 are left.
    for (let m = 0; m < 3; m++) expect(await throttle.attempt('chat', `m${m}`, '198.51.100.1')).toBe(0);
    expect(await throttle.attempt('chat', 'm3', '198.51.100.1')).toBeGreaterThan(0);
  });

  it('limits payment orders per member only', async () => {
    const throttle = ActionThrottle.inMemory(LIMITS);
    expect(await throttle.attempt('orders', 'm1', '198.51.100.4')).toBe(0);
    expect(await throttle.attempt('orders', 'm1', '198.51.100.5')).toBe(0);
    expect(await throttle.attempt('orders', 'm1', '198.51.100.6')).toBeGreaterThan(0);
    expect(await throttle.attempt('orders', 'm2', '198.51.100.4')).toBe(0);
  });
});

const LOGIN: LoginLimits = {
  attemptsPerIp: { max: 1000, windowMs: 60_000 },
  failuresPerAccountAndIp: { max: 3, windowMs: 60_000 },
  failuresPerIp: { max: 6, windowMs: 60_000 },
  accountCeiling: { after: 6, windowMs: 60_000, firstDelayMs: 1_000, maxDelayMs: 30_000 },
  failuresPerDevice: { max: 2, windowMs: 60_000 },
};

const wrong = () => Promise.reject(new DomainError('unauthorized', 'wrong password'));
const right = () => Promise.resolve('in');
const tooMany = (seconds: number) => `wait ${seconds}`;

/** What a login attempt came to: 'in', 'wrong' or the wait of a refusal. */
async function login(throttle: LoginThrottle, account: string, ip: string, check: () => Promise<string>, device?: string): Promise<string | number> {
  try {
    return await throttle.guard(account, ip, tooMany, check, device);
  } catch (error) {
    if (isDomainError(error, 'too_soon')) return Number(error.details.retryAfterSeconds);
    if (isDomainError(error, 'unauthorized')) return 'wrong';
    throw error;
  }
}

/** The login limits' behaviour, the same on both stores. */
function loginSuite(open: () => Promise<{ throttle: LoginThrottle; done: () => Promise<void> }>) {
  const withThrottle = async (test: (t: LoginThrottle) => Promise<void>) => {
    const { throttle, done } = await open();
    try {
      await test(throttle);
    } finally {
      await done();
    }
  };

  it('counts guesses sent at once before any is checked: only the allowance is tried', async () => {
    await withThrottle(async (t) => {
      let tried = 0;
      const guess = () => {
        tried++;
        return wrong();
      };
      const answers = await Promise.all(Array.from({ length: 10 }, () => login(t, 'm@example.com', '198.51.100.1', guess)));
      expect(tried).toBe(3);
      expect(answers.filter((a) => a === 'wrong')).toHaveLength(3);
      expect(answers.filter((a) => typeof a === 'number' && a > 0 && a <= 60)).toHaveLength(7);
    });
  });

  it('past the account’s ceiling a client without its device cookie is refused untried; a device signs in on its own budget', async () => {
    await withThrottle(async (t) => {
      // Two attackers fail 3 times each: 6 failures on the account, its ceiling.
      for (const ip of ['198.51.100.1', '198.51.100.2']) for (let i = 0; i < 3; i++) expect(await login(t, 'M@example.com', ip, wrong)).toBe('wrong');
      let tried = 0;
      const counted = () => {
        tried++;
        return right();
      };
      expect(await login(t, 'm@example.com', '203.0.113.7', counted)).toEqual(expect.any(Number));
      expect(tried).toBe(0);
      expect(await login(t, 'm@example.com', '203.0.113.7', right, 'phone')).toBe('in');
      // The device's own budget: 2 wrong passwords, then it is any other client (refused here).
      expect(await login(t, 'm@example.com', '203.0.113.8', wrong, 'laptop')).toBe('wrong');
      expect(await login(t, 'm@example.com', '203.0.113.8', wrong, 'laptop')).toBe('wrong');
      expect(await login(t, 'm@example.com', '203.0.113.8', right, 'laptop')).toEqual(expect.any(Number));
      // Another account is untouched by this one's ceiling.
      expect(await login(t, 'n@example.com', '203.0.113.7', right)).toBe('in');
    });
  });

  it('guesses from many clients at once, on an account registered or not: only the ceiling is checked', async () => {
    await withThrottle(async (t) => {
      let tried = 0;
      const guess = () => {
        tried++;
        return wrong();
      };
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => login(t, 'nobody@example.com', `198.51.100.${i + 1}`, guess)));
      expect(tried).toBe(6);
      expect(answers.filter((a) => typeof a === 'number' && a > 0)).toHaveLength(14);
      // The refused gave back the clients' points: each has its full allowance elsewhere.
      expect(await login(t, 'other@example.com', '198.51.100.20', right)).toBe('in');
    });
  });

  it('past the ceiling one guess per delay is checked, the delay doubling with each wrong one; a reset clears it', { timeout: 20_000 }, async () => {
    await withThrottle(async (t) => {
      for (let i = 0; i < 6; i++) expect(await login(t, 'd@example.com', `198.51.100.${i + 1}`, wrong)).toBe('wrong');
      const waits: number[] = [];
      for (let round = 0; round < 2; round++) {
        const refused = await login(t, 'd@example.com', '198.51.100.30', wrong);
        expect(refused).toEqual(expect.any(Number));
        waits.push(refused as number);
        await sleep((refused as number) * 1000 + 100);
        expect(await login(t, 'd@example.com', `198.51.100.${40 + round}`, wrong)).toBe('wrong');
      }
      const last = await login(t, 'd@example.com', '198.51.100.30', wrong);
      expect(last).toEqual(expect.any(Number));
      waits.push(last as number);
      // 1 s, then 2 s, then 4 s (whole seconds, as Redis keeps them).
      expect(waits[0]).toBeLessThan(waits[1]!);
      expect(waits[1]).toBeLessThan(waits[2]!);
      await t.clearAccount('D@example.com');
      expect(await login(t, 'd@example.com', '198.51.100.31', right)).toBe('in');
    });
  });

  it('a right password clears the client’s failures; failures per client count over every account', async () => {
    await withThrottle(async (t) => {
      for (let i = 0; i < 2; i++) expect(await login(t, 'a@example.com', '198.51.100.3', wrong)).toBe('wrong');
      expect(await login(t, 'a@example.com', '198.51.100.3', right)).toBe('in');
      for (let i = 0; i < 2; i++) expect(await login(t, 'a@example.com', '198.51.100.3', wrong)).toBe('wrong');
      // 4 failures from this client so far; 2 more on other accounts reach its 6.
      expect(await login(t, 'b@example.com', '198.51.100.3', wrong)).toBe('wrong');
      expect(await login(t, 'c@example.com', '198.51.100.3', wrong)).toBe('wrong');
      expect(await login(t, 'd@example.com', '198.51.100.3', right)).toEqual(expect.any(Number));
      expect(await login(t, 'd@example.com', '198.51.100.4', right)).toBe('in');
    });
  });

  it('an attempt that was no guess (a conflict, the store down) is given back', async () => {
    await withThrottle(async (t) => {
      const busy = () => Promise.reject(new DomainError('conflict', 'try again'));
      for (let i = 0; i < 5; i++) await expect(t.guard('e@example.com', '198.51.100.5', tooMany, busy)).rejects.toThrow('try again');
      expect(await login(t, 'e@example.com', '198.51.100.5', right)).toBe('in');
    });
  });
}

describe('login limits in memory', () => {
  loginSuite(async () => ({ throttle: LoginThrottle.inMemory(LOGIN), done: async () => {} }));

  it('keeps its defaults: at most 20 guesses on one account checked before the ceiling', () => {
    expect(DEFAULT_LOGIN_LIMITS.failuresPerAccountAndIp).toEqual({ max: 10, windowMs: 60 * 60_000 });
    expect(DEFAULT_LOGIN_LIMITS.accountCeiling.after).toBeLessThanOrEqual(20);
    expect(DEFAULT_LOGIN_LIMITS.failuresPerDevice.max).toBeLessThanOrEqual(DEFAULT_LOGIN_LIMITS.failuresPerAccountAndIp.max);
  });
});

describe.skipIf(!redisReachable)('login limits in Redis', () => {
  it('keeps no e-mail address in Redis: the account is named by a digest', async () => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    const prefix = `test:login-keys:${randomUUID()}:`;
    try {
      const throttle = LoginThrottle.onRedis(redis, prefix, LOGIN);
      for (let i = 0; i < 6; i++) await login(throttle, 'Erased.Member@Example.com', `198.51.100.${i + 1}`, wrong);
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.some((k) => k.startsWith(`${prefix}failures:account:`))).toBe(true);
      expect(keys.filter((k) => /erased\.member|example\.com/i.test(k))).toEqual([]);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('two processes on one Redis share the ceiling: guesses sent to both at once, only the ceiling is checked', async () => {
    const redis = [0, 1].map(() => new Redis(testRedisUrl(), { maxRetriesPerRequest: 2, enableAutoPipelining: true }));
    const prefix = `test:login-shared:${randomUUID()}:`;
    try {
      const [one, two] = redis.map((r) => LoginThrottle.onRedis(r, prefix, LOGIN)) as [LoginThrottle, LoginThrottle];
      let tried = 0;
      const guess = () => {
        tried++;
        return wrong();
      };
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => login(i % 2 ? one : two, 'shared@example.com', `198.51.100.${i + 1}`, guess)));
      expect(tried).toBe(6);
      expect(answers.filter((a) => typeof a === 'number')).toHaveLength(14);
      await one.clearAccount('shared@example.com');
      expect(await login(two, 'shared@example.com', '198.51.100.50', right)).toBe('in');
    } finally {
      const keys = await redis[0]!.keys(`${prefix}*`);
      if (keys.length) await redis[0]!.del(...keys);
      for (const r of redis) r.disconnect();
    }
  });

  loginSuite(async () => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2, enableAutoPipelining: true });
    const prefix = `test:login-limits:${randomUUID()}:`;
    return {
      throttle: LoginThrottle.onRedis(redis, prefix, LOGIN),
      done: async () => {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      },
    };
  });
});
