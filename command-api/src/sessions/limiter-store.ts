import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimit } from './limits';

/**
 * The one counter implementation every throttle stands on: rate-limiter-flexible, in this
 * process's memory (standalone) or in Redis (distributed: every command-api process shares the
 * counts, so adding processes does not multiply the allowance). Both count atomically: a
 * consume decides and counts in one step (one Lua script in Redis), so attempts sent at once
 * cannot all pass the last free slot.
 */
export type LimiterStore = { kind: 'memory' } | { kind: 'redis'; redis: Redis; prefix: string };

export const inMemoryStore: LimiterStore = { kind: 'memory' };

/** Whole seconds: Redis expiries are set in seconds (EX) by the library's script. */
export const wholeSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** A fixed-window limiter named `name` (its keys are `<prefix><name>:<key>` in Redis). */
export function openLimiter(store: LimiterStore, name: string, limit: RateLimit): RateLimiterAbstract {
  const options = { points: limit.max, duration: wholeSeconds(limit.windowMs) };
  if (store.kind === 'memory') return new RateLimiterMemory({ ...options, keyPrefix: name });
  return new RateLimiterRedis({ ...options, keyPrefix: store.prefix + name, storeClient: store.redis });
}

export interface Consumed {
  allowed: boolean;
  /** Seconds until the key may try again (0 when allowed). */
  waitSeconds: number;
  /** Points the key has used in its window, this one included. */
  used: number;
}

/**
 * Consumes one point for `key`. A refusal is an answer, not an error; a store failure (Redis
 * unreachable) is thrown. `customDuration` (seconds) sets the window of a key that starts now.
 */
export async function tryConsume(limiter: RateLimiterAbstract, key: string, customDuration?: number): Promise<Consumed> {
  try {
    const res = await limiter.consume(key, 1, customDuration === undefined ? {} : { customDuration });
    return { allowed: true, waitSeconds: 0, used: res.consumedPoints };
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    return { allowed: false, waitSeconds: wholeSeconds(refusal.msBeforeNext), used: refusal.consumedPoints };
  }
}
