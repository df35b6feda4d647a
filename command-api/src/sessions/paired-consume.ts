import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { tryConsume, wholeSeconds, type LimiterStore } from './limiter-store';

/**
 * Counts one attempt against two limiters in turn (a member, then their address): the second is
 * consumed only when the first allows, and when the second refuses, the first gets its point
 * back. Answers the wait in seconds of the limiter that refused (0: allowed).
 */
export type PairedConsume = (first: RateLimiterAbstract, firstKey: string, second: RateLimiterAbstract, secondKey: string) => Promise<number>;

/**
 * rate-limiter-flexible's own consume script (RateLimiterRedis, `incrTtlLuaScript`: a window
 * starts with the first point, EX its duration) run on both keys in turn, with the give-back,
 * in one script: one round trip per attempt instead of two, and no moment in which another
 * attempt sees the second key counted for a member the first refused. The keys, values and
 * expiries are the library's, so its limiters read and reward them as their own.
 */
const CONSUME_PAIR_LUA = `
local function take(key, seconds)
  redis.call('set', key, 0, 'EX', seconds, 'NX')
  local consumed = redis.call('incrby', key, 1)
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, seconds)
    ttl = 1000 * seconds
  end
  return consumed, ttl
end
local consumed, ttl = take(KEYS[1], ARGV[2])
if consumed > tonumber(ARGV[1]) then return {1, ttl} end
consumed, ttl = take(KEYS[2], ARGV[4])
if consumed > tonumber(ARGV[3]) then
  redis.call('incrby', KEYS[1], -1)
  return {1, ttl}
end
return {0, 0}
`;

const COMMAND = 'passConsumeLimitPair';

type WithPairCommand = Redis & { [COMMAND](first: string, second: string, firstMax: number, firstSeconds: number, secondMax: number, secondSeconds: number): Promise<[refused: number, ttlMs: number]> };

/** Each limiter in its own round trip, through the library (memory: nothing to save). */
async function consumeInTurn(first: RateLimiterAbstract, firstKey: string, second: RateLimiterAbstract, secondKey: string): Promise<number> {
  const mine = await tryConsume(first, firstKey);
  if (!mine.allowed) return mine.waitSeconds;
  const other = await tryConsume(second, secondKey);
  if (other.allowed) return 0;
  await first.reward(firstKey);
  return other.waitSeconds;
}

/** The paired consume of a limiter store: one script call in Redis, the library in turn in memory. */
export function pairedConsume(store: LimiterStore): PairedConsume {
  if (store.kind === 'memory') return consumeInTurn;
  const redis = store.redis as WithPairCommand;
  // Defined once per client; another throttle on the same client reuses it.
  if (typeof redis[COMMAND] !== 'function') redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: CONSUME_PAIR_LUA });
  return async (first, firstKey, second, secondKey) => {
    const [refused, ttlMs] = await redis[COMMAND](first.getKey(firstKey), second.getKey(secondKey), first.points, first.duration, second.points, second.duration);
    return refused === 1 ? wholeSeconds(ttlMs) : 0;
  };
}
