import type { Redis } from 'ioredis';
import type { SessionVerifier } from '@pass/events';
import { systemClock } from '@pass/command-api/kernel/clock';
import { RedisSessionStore } from '@pass/command-api/sessions/redis-session-store';
import { Sessions } from '@pass/command-api/sessions/sessions';

/**
 * Distributed query-api: verifies the session cookies command-api issued, against the same
 * Redis records and SESSION_SECRET, so REST reads and socket handshakes need no hop to
 * command-api. A logout (record deleted) takes effect here at once. Only `verify` is used;
 * issuing stays with command-api.
 */
export function redisSessionVerifier(options: { redis: Redis; keyPrefix: string; secret: string; cookieSecure: boolean }): SessionVerifier {
  const sessions = new Sessions({
    store: new RedisSessionStore(options.redis, options.keyPrefix),
    secret: options.secret,
    cookieSecure: options.cookieSecure,
    clock: systemClock,
  });
  return { verify: (cookieHeader) => sessions.verify(cookieHeader) };
}
