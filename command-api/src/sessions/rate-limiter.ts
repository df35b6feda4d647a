import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DomainError, isDomainError, normalizeEmail } from '@pass/events';

/**
 * Fixed-window counters for login attempts, per e-mail and per client address. The memory
 * adapter serves one process (standalone); the Redis one shares the counts between every
 * command-api process (distributed), so adding processes does not multiply the allowance.
 */
export interface RateLimit {
  max: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Seconds until `key` may try again, or 0 when it may try now. Does not count. */
  retryAfterSeconds(key: string): Promise<number>;
  hit(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limit: RateLimit) {}

  async retryAfterSeconds(key: string): Promise<number> {
    const now = Date.now();
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now || w.count < this.limit.max) return 0;
    return Math.max(1, Math.ceil((w.resetAt - now) / 1000));
  }

  async hit(key: string): Promise<void> {
    const now = Date.now();
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.set(key, { count: 1, resetAt: now + this.limit.windowMs });
      this.sweep(now);
    } else {
      w.count++;
    }
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  /** Drops finished windows now and then, so the map stays small. */
  private sweep(now: number): void {
    if (this.windows.size < 10_000) return;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: RateLimit,
  ) {}

  async retryAfterSeconds(key: string): Promise<number> {
    const [count, ttl] = await Promise.all([this.redis.get(this.prefix + key), this.redis.pttl(this.prefix + key)]);
    if (!count || Number(count) < this.limit.max || ttl <= 0) return 0;
    return Math.max(1, Math.ceil(ttl / 1000));
  }

  async hit(key: string): Promise<void> {
    // The window starts with the first attempt: the expiry is set only when the key is new.
    await this.redis.multi().incr(this.prefix + key).pexpire(this.prefix + key, this.limit.windowMs, 'NX').exec();
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

export interface LoginLimits {
  /** Failed passwords per e-mail. */
  perEmail: RateLimit;
  /** Every join/login attempt per client address. */
  perIp: RateLimit;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perEmail: { max: 5, windowMs: 15 * 60_000 },
  perIp: { max: 60, windowMs: 15 * 60_000 },
};

export function tooManyAttemptsMessage(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Too many login attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** Spanish for the admin dashboard. */
export function tooManyAdminAttemptsMessage(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Demasiados intentos. Intente de nuevo en ${minutes} minuto${minutes === 1 ? '' : 's'}.`;
}

export class LoginThrottle {
  constructor(
    private readonly emails: RateLimiter,
    private readonly ips: RateLimiter,
  ) {}

  static inMemory(limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
    return new LoginThrottle(new MemoryRateLimiter(limits.perEmail), new MemoryRateLimiter(limits.perIp));
  }

  static onRedis(redis: Redis, prefix: string, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
    return new LoginThrottle(new RedisRateLimiter(redis, `${prefix}email:`, limits.perEmail), new RedisRateLimiter(redis, `${prefix}ip:`, limits.perIp));
  }

  /** Counts an attempt from `ip` for `email`; returns the wait in seconds when refused. */
  async attempt(email: string, ip: string): Promise<number> {
    const key = normalizeEmail(email);
    const [byEmail, byIp] = await Promise.all([this.emails.retryAfterSeconds(key), this.ips.retryAfterSeconds(ip)]);
    const wait = Math.max(byEmail, byIp);
    if (wait > 0) return wait;
    await this.ips.hit(ip);
    return 0;
  }

  failed(email: string): Promise<void> {
    return this.emails.hit(normalizeEmail(email));
  }

  succeeded(email: string): Promise<void> {
    return this.emails.reset(normalizeEmail(email));
  }

  /**
   * Runs `check` (a login) under the limits: refused as a 429 with `tooMany`'s message while
   * `email` or `ip` is over them; a wrong password (`unauthorized`) counts against the e-mail, a
   * right one clears its count.
   */
  async guard<T>(email: string, ip: string, tooMany: (seconds: number) => string, check: () => Promise<T>): Promise<T> {
    const wait = await this.attempt(email, ip);
    if (wait > 0) throw new DomainError('too_soon', tooMany(wait), { retryAfterSeconds: wait });
    let result: T;
    try {
      result = await check();
    } catch (error) {
      if (isDomainError(error, 'unauthorized')) await this.failed(email);
      throw error;
    }
    await this.succeeded(email);
    return result;
  }
}

/**
 * Burst limits on the member actions a script could hammer (chat and the free point, per member
 * and per client address; payment order creation, per member), over HTTP and over the sockets alike. A human never reaches them: the
 * free point is once per 30 s by its own rule, and chat allows a quick burst of messages.
 */
export interface ActionLimits {
  chatPerUser: RateLimit;
  chatPerIp: RateLimit;
  freePointPerUser: RateLimit;
  freePointPerIp: RateLimit;
  /**
   * Payment orders created per member (no address limit: creating one needs a session). Each
   * creation asks the provider for an order, so a script must not make them in a loop.
   */
  ordersPerUser: RateLimit;
}

export const DEFAULT_ACTION_LIMITS: ActionLimits = {
  chatPerUser: { max: 5, windowMs: 10_000 },
  chatPerIp: { max: 30, windowMs: 10_000 },
  // The decider allows one point per 30 s; this only stops a client asking in a tight loop.
  freePointPerUser: { max: 10, windowMs: 60_000 },
  // Members behind one address (a school, an office) each get theirs.
  freePointPerIp: { max: 60, windowMs: 60_000 },
  // Ten checkouts in ten minutes: more than a member buying points ever starts.
  ordersPerUser: { max: 10, windowMs: 10 * 60_000 },
};

export type ThrottledAction = 'chat' | 'freePoint' | 'orders';

export function tooManyActionsMessage(action: ThrottledAction, seconds: number): string {
  const wait = `${seconds} second${seconds === 1 ? '' : 's'}`;
  if (action === 'chat') return `You are sending messages too fast. Please wait ${wait} and try again.`;
  if (action === 'orders') {
    const minutes = Math.ceil(seconds / 60);
    const later = seconds < 60 ? wait : `${minutes} minute${minutes === 1 ? '' : 's'}`;
    return `Too many payment orders started. Please wait ${later} and try again.`;
  }
  return `Too many requests for free points. Please wait ${wait} and try again.`;
}

/** The per-member and per-address windows of one action, checked and counted together in one Redis call. */
const ATTEMPT_SCRIPT = `
local wait = 0
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= tonumber(ARGV[2 * i - 1]) then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl > wait then wait = ttl end
  end
end
if wait > 0 then return wait end
for i = 1, #KEYS do
  redis.call('INCR', KEYS[i])
  redis.call('PEXPIRE', KEYS[i], ARGV[2 * i], 'NX')
end
return 0`;

const ATTEMPT_SHA = createHash('sha1').update(ATTEMPT_SCRIPT).digest('hex');

/** EVALSHA (the script is cached by Redis after its first EVAL), EVAL when Redis does not know it (first call, after a restart). */
async function runAttemptScript(redis: Redis, keys: string[], args: number[]): Promise<unknown> {
  try {
    return await redis.evalsha(ATTEMPT_SHA, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(ATTEMPT_SCRIPT, keys.length, ...keys, ...args);
  }
}

type Attempt = (action: ThrottledAction, userId: string, ip: string | undefined) => Promise<number>;

export class ActionThrottle {
  private constructor(private readonly attemptOf: Attempt) {}

  static inMemory(limits: ActionLimits = DEFAULT_ACTION_LIMITS): ActionThrottle {
    const limiters: Record<ThrottledAction, { user: RateLimiter; ip?: RateLimiter }> = {
      chat: { user: new MemoryRateLimiter(limits.chatPerUser), ip: new MemoryRateLimiter(limits.chatPerIp) },
      freePoint: { user: new MemoryRateLimiter(limits.freePointPerUser), ip: new MemoryRateLimiter(limits.freePointPerIp) },
      orders: { user: new MemoryRateLimiter(limits.ordersPerUser) },
    };
    return new ActionThrottle(async (action, userId, address) => {
      const { user, ip: byIp } = limiters[action];
      const ip = byIp ? address : undefined;
      const [waitUser, waitIp] = await Promise.all([user.retryAfterSeconds(userId), ip && byIp ? byIp.retryAfterSeconds(ip) : Promise.resolve(0)]);
      const wait = Math.max(waitUser, waitIp);
      if (wait > 0) return wait;
      await Promise.all([user.hit(userId), ip && byIp ? byIp.hit(ip) : Promise.resolve()]);
      return 0;
    });
  }

  /**
   * Shared by every command-api process. One script per attempt checks both windows and counts
   * both, atomically (it was six commands in three round trips, and two processes could both
   * pass the last free slot); the keys and their expiry are the login limiter's.
   */
  static onRedis(redis: Redis, prefix: string, limits: ActionLimits = DEFAULT_ACTION_LIMITS): ActionThrottle {
    const windows: Record<ThrottledAction, { user: RateLimit; ip?: RateLimit; userKey: string; ipKey: string }> = {
      chat: { user: limits.chatPerUser, ip: limits.chatPerIp, userKey: `${prefix}chat:user:`, ipKey: `${prefix}chat:ip:` },
      freePoint: { user: limits.freePointPerUser, ip: limits.freePointPerIp, userKey: `${prefix}free:user:`, ipKey: `${prefix}free:ip:` },
      orders: { user: limits.ordersPerUser, userKey: `${prefix}orders:user:`, ipKey: '' },
    };
    return new ActionThrottle(async (action, userId, address) => {
      const w = windows[action];
      const ip = w.ip ? address : undefined;
      const keys = ip ? [w.userKey + userId, w.ipKey + ip] : [w.userKey + userId];
      const args = ip && w.ip ? [w.user.max, w.user.windowMs, w.ip.max, w.ip.windowMs] : [w.user.max, w.user.windowMs];
      const waitMs = Number(await runAttemptScript(redis, keys, args));
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
    });
  }

  /** Counts one attempt of `action`; returns the wait in seconds when refused (nothing counted then). */
  attempt(action: ThrottledAction, userId: string, ip: string | undefined): Promise<number> {
    return this.attemptOf(action, userId, ip);
  }

  /** `attempt`, refused as a 429 (with Retry-After) when the member or their address is over the limit. */
  async enforce(action: ThrottledAction, userId: string, ip: string | undefined): Promise<void> {
    const wait = await this.attemptOf(action, userId, ip);
    if (wait > 0) throw new DomainError('too_soon', tooManyActionsMessage(action, wait), { retryAfterSeconds: wait });
  }
}
