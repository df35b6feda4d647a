/**
 * query-api as its own process (distributed mode), as many instances as needed behind the
 * proxy: REST reads from the Redis read models, the Socket.IO server on the Redis adapter (so
 * the projector's emitter and every instance's broadcasts reach all browsers, and
 * connectedUsers counts every instance's visitors), session cookies verified against the
 * sessions command-api keeps in Redis, socket commands forwarded to command-api over HTTP, and
 * the built web app.
 */
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EncryptingEventStore } from '@pass/events/personal-data';
import { openPersonalDataEventStore } from '@pass/events/store';
import { commandApiRedisKeys, createHttpCommandGateway, createRedisSessionVerifier, ImageJobFailures } from '@pass/command-api';
import { createRedisReadModels, createRemoteProjectionControl, createRemoteReplayControl, readLeadership, WatchedCheckpoints } from '@pass/projector';
import { attachSocketServer, createQueryReads, readSideChecks } from '@pass/query-api';
import { requireSettings, type Settings } from '../config/settings';
import { socketSecurity } from '../http/security-headers';
import { createShellServer, listen, stopServing } from '../wiring/http';
import { isEntryPoint, Resources } from '../wiring/lifecycle';
import { createRegistry, opsRouter, readModelsRedisChecks, redisCheck, remoteProjectorCheck } from '../wiring/ops';
import { runService } from '../wiring/process';
import { closeRedis, openReadModelsRedis, openRedis, redisKeys } from '../wiring/redis';
import { queryApiRequires } from './requirements';

type RedisKeys = ReturnType<typeof redisKeys>;

/** What query-api reads from and talks through, each closed by the process's `Resources`. */
interface Connections {
  eventStore: EncryptingEventStore;
  redis: Redis;
  /** The Socket.IO adapter's publisher and subscriber. */
  pubClient: Redis;
  subClient: Redis;
  /** The Redis Cluster with REDIS_CLUSTER_NODES, else `redis` itself. */
  readModelsRedis: Redis | Cluster;
}

export async function startQueryApiService(settings: Settings, logger: Logger) {
  const keys = redisKeys(settings.redisPrefix);
  const resources = new Resources();
  try {
    const connections = await openConnections(settings, logger, resources);
    const readSide = await buildReadSide(settings, keys, connections, logger, resources);
    const url = await serve(settings, keys, connections, readSide, logger, resources);
    return { url, eventStore: connections.eventStore, close: resources.close };
  } catch (error) {
    await resources.close().catch(() => undefined);
    throw error;
  }
}

async function openConnections(settings: Settings, logger: Logger, resources: Resources): Promise<Connections> {
  // Admin audit reads a member's stream straight from the store; readiness reports its lag.
  const eventStore = await openPersonalDataEventStore(settings.eventStoreUrl, { logger });
  resources.add(() => eventStore.close());
  const redis = openRedis(settings.redisUrl!, 'query-api', logger);
  // The adapter's subscriber is in subscribe mode: it needs a connection of its own.
  const pubClient = openRedis(settings.redisUrl!, 'query-api:socket.io-pub', logger);
  const subClient = openRedis(settings.redisUrl!, 'query-api:socket.io-sub', logger);
  resources.add(() => closeRedis(redis, pubClient, subClient));
  const readModelsRedis = openReadModelsRedis(settings, 'query-api', logger, redis, resources);
  return { eventStore, redis, pubClient, subClient, readModelsRedis };
}

/** The read models, the sessions and command gateway the reads and sockets share, and the REST reads over them. */
async function buildReadSide(settings: Settings, keys: RedisKeys, connections: Connections, logger: Logger, resources: Resources) {
  const { eventStore, redis, readModelsRedis } = connections;
  const registry = createRegistry('query-api');
  const readModels = createRedisReadModels({
    redis: readModelsRedis,
    root: keys.readModels,
    onTextMirrorError: (error) => logger.warn({ err: error }, 'text index copy not loaded: searches find word starts only until it loads'),
  });
  // Searches for any part of a word need this process's copy of the text index: loading starts
  // now (in the background), not at the first search.
  void readModels.active().then((ks) => ks.prepareSearch()).catch((error: unknown) => logger.warn({ err: error }, 'text index copy not loaded at start'));
  // The home figures and the top 5 are rebuilt when the projector announces a batch, not
  // checked in Redis on every request.
  const checkpoints = await WatchedCheckpoints.watch(readModelsRedis, keys.readModels, logger);
  resources.add(() => checkpoints.close());
  const sessions = createRedisSessionVerifier({ redis, redisPrefix: settings.redisPrefix, sessionSecret: settings.sessionSecret!, cookieSecure: settings.cookieSecure });
  const gateway = createHttpCommandGateway({ baseUrl: settings.commandApiUrl! });
  const projections = createRemoteProjectionControl({
    leadership: () => readLeadership(readModelsRedis, keys.readModels),
    redisUrl: settings.redisUrl!,
    prefix: keys.bull,
    stateKey: keys.rebuildState,
    redis,
    readModels,
    eventStore,
  });
  resources.add(() => projections.close());
  // Replays are queued for the projector process, as rebuilds are; their read models are read from Redis.
  const replays = createRemoteReplayControl({
    redisUrl: settings.redisUrl!,
    prefix: keys.bull,
    readModelsRedis,
    root: keys.replayReadModels,
    stateRedis: redis,
    stateRoot: keys.replayStates,
    eventStore,
    logger,
  });
  resources.add(() => replays.close());

  // The admin's status panel lists the image jobs that failed every attempt.
  const imageJobs = new ImageJobFailures({ redisUrl: settings.redisUrl!, prefix: commandApiRedisKeys(settings.redisPrefix).imageJobs });
  resources.add(() => imageJobs.close());

  const reads = createQueryReads({ readModels, checkpointOf: checkpoints.checkpointOf, sessions, gateway, eventStore, logger, metrics: registry, projections, replays, imageJobs });
  return { registry, readModels, sessions, gateway, reads };
}

type ReadSide = Awaited<ReturnType<typeof buildReadSide>>;

/** The HTTP server (ops routes, reads, web app) and the Socket.IO server on it; resolves with the URL once listening. */
async function serve(
  settings: Settings,
  keys: RedisKeys,
  connections: Connections,
  readSide: ReadSide,
  logger: Logger,
  resources: Resources,
): Promise<string> {
  const { eventStore, redis, pubClient, subClient, readModelsRedis } = connections;
  const { registry, readModels, sessions, gateway, reads } = readSide;
  const ops = opsRouter({
    service: 'query-api',
    mode: 'distributed',
    eventStore,
    registry,
    logger,
    checks: [
      ...readSideChecks({ readModels, eventStore }),
      remoteProjectorCheck({ redis, heartbeatKey: keys.projectorHeartbeat, readModels, eventStore, maxLag: settings.readyMaxLag }),
      redisCheck('redis', redis),
      redisCheck('redis-socket.io', pubClient),
      ...readModelsRedisChecks(readModelsRedis, redis),
    ],
  });
  // Socket.IO takes over the server's request listener when it attaches, answering /socket.io/
  // itself and passing everything else to this one: the hot public reads skip Express (same
  // shell steps, same answers), the rest goes to the app.
  const server = createShellServer(settings, logger, { routers: [ops, reads.router], fastLanes: [reads.fastLane] });
  const sockets = attachSocketServer(server, {
    readModels,
    sessions,
    gateway,
    logger,
    metrics: registry,
    redisAdapter: { pubClient, subClient, key: keys.socketIo },
    ...socketSecurity(settings),
    limits: { socketsPerClient: settings.socketsPerClient },
    // Each client's budgets are shared by every query-api instance, as command-api's limits are.
    budgetStore: { redis, prefix: keys.socketLimits },
  });
  const url = await listen(server, settings.host, settings.port);
  resources.add(() => stopServing(server, sockets));
  return url;
}

if (isEntryPoint(import.meta.url)) {
  await runService('query-api', startQueryApiService, {
    validate: (settings) => requireSettings(settings, 'query-api', queryApiRequires),
    extra: (running) => ({ eventStore: running.eventStore.kind }),
  });
}
