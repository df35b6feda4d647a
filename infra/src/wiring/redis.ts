import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Settings } from '../config/settings';
import type { Resources } from './lifecycle';

/**
 * One named Redis connection. Names show in CLIENT LIST, so an operator can tell which service
 * and role holds a connection. Errors are logged (ioredis reconnects on its own) instead of
 * being unhandled 'error' events that would kill the process.
 */
export function openRedis(url: string, name: string, logger: Logger, options: RedisOptions = {}): Redis {
  return logProblems(new Redis(url, { connectionName: name, maxRetriesPerRequest: 2, ...options }), name, logger);
}

/**
 * The read models' connection: the Redis Cluster of REDIS_CLUSTER_NODES when set (every
 * keyspace's keys share a hash tag, so the same scripts run there), closed by `resources`;
 * else `single`, the process's own connection, which its opener closes.
 */
export function openReadModelsRedis(settings: Settings, name: string, logger: Logger, single: Redis, resources: Resources): Redis | Cluster {
  if (!settings.redisClusterNodes) return single;
  const cluster = new Cluster(settings.redisClusterNodes, { redisOptions: { connectionName: `${name}:read-models`, maxRetriesPerRequest: 2 } });
  const readModelsRedis = logProblems(cluster, `${name}:read-models`, logger);
  resources.add(() => closeRedis(readModelsRedis));
  return readModelsRedis;
}

function logProblems<T extends Redis | Cluster>(redis: T, name: string, logger: Logger): T {
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

export async function closeRedis(...clients: Array<Redis | Cluster>): Promise<void> {
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
}

/** Redis key layout shared by every process of one deployment (all under REDIS_PREFIX). */
export function redisKeys(prefix: string) {
  return {
    readModels: `${prefix}rm`,
    /** The admin's replays' keyspaces: a root of their own, never listed, switched to or dropped by rebuilds. */
    replayReadModels: `${prefix}rm:replay`,
    /** The replays' statuses, which the projector writes and every query-api reads. */
    replayStates: `${prefix}projector:replays`,
    /** Socket.IO adapter and emitter channel; every query-api and the projector use the same. */
    socketIo: `${prefix}socket.io`,
    bull: `${prefix}bull`,
    rebuildState: `${prefix}projector:rebuild`,
    /** The projector's heartbeat (progress, last error), which query-api's readiness reads. */
    projectorHeartbeat: `${prefix}projector:heartbeat`,
    /** query-api's per-client socket budgets (beside command-api's `limits:` keys). */
    socketLimits: `${prefix}limits:socket:`,
  };
}
