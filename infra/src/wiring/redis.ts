import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * One named Redis connection. Names show in CLIENT LIST, so an operator can tell which service
 * and role holds a connection. Errors are logged (ioredis reconnects on its own) instead of
 * being unhandled 'error' events that would kill the process.
 */
export function openRedis(url: string, name: string, logger: Logger, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { connectionName: name, maxRetriesPerRequest: 2, ...options });
  let warned = false;
  redis.on('error', (error: Error) => {
    // One line per outage, not one per retry.
    if (!warned) logger.warn({ err: error, redis: name }, 'redis connection problem');
    warned = true;
  });
  redis.on('ready', () => {
    if (warned) logger.info({ redis: name }, 'redis connection back');
    warned = false;
  });
  return redis;
}

export async function closeRedis(...clients: Redis[]): Promise<void> {
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
}

/** Redis key layout shared by every process of one deployment (all under REDIS_PREFIX). */
export function redisKeys(prefix: string) {
  return {
    readModels: `${prefix}rm`,
    /** Socket.IO adapter and emitter channel; every query-api and the projector use the same. */
    socketIo: `${prefix}socket.io`,
    bull: `${prefix}bull`,
    rebuildState: `${prefix}projector:rebuild`,
  };
}
