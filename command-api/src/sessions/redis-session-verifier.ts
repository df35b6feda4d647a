import type { SessionVerifier } from '@pass/events';
import type { Redis } from 'ioredis';
import { systemClock } from '../kernel/clock';
import { commandApiRedisKeys } from '../redis-keys';
import { RedisSessionStore } from './redis-session-store';
import { Sessions } from './sessions';

/**
 * For another process (query-api) that must read the cookies command-api issued: the same
 * Redis records and secret, so a logout takes effect there at once. It only verifies, and keeps
 * no copy of a record (no `SessionRecordCache`): every HTTP request and every socket command
 * reads Redis, so a session ended by a logout, a sign-out everywhere, a password change or a
 * reset is refused by query-api on its next request. (command-api's own caches forget an ended
 * id one pub/sub hop later, and re-read any record after 60 s at the most.)
 */
export function createRedisSessionVerifier(options: { redis: Redis; redisPrefix?: string; sessionSecret: string; cookieSecure: boolean }): SessionVerifier {
  const sessions = new Sessions({
    store: new RedisSessionStore(options.redis, commandApiRedisKeys(options.redisPrefix).sessions),
    secret: options.sessionSecret,
    cookieSecure: options.cookieSecure,
    clock: systemClock,
  });
  return { verify: (cookieHeader) => sessions.verify(cookieHeader) };
}
