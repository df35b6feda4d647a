/**
 * The projector as its own process (distributed mode), one of a hot/standby group of any size:
 * the holder of a lease in the read-models Redis leads. The leader follows the shared event store
 * into the Redis read models (each batch stored with its checkpoint in one atomic write, fenced
 * by the lease's epoch), publishes live events to every query-api through the Socket.IO Redis
 * emitter, and runs the rebuilds query-api queues; every member runs replays. A small HTTP port
 * (PROJECTOR_PORT) serves /healthz, /readyz (store and Redis answer; the leader caught up),
 * /metrics and /status (with the group's leadership).
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import express from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { openPersonalDataEventStore } from '@pass/events/store';
import {
  buildKeyspaceId,
  createProjector,
  createRedisReadModels,
  LeaderGroup,
  ProjectionVersions,
  projectionFingerprint,
  RedisLease,
  readRebuildState,
  rebuildStateWriter,
  redisEmitterPublisher,
  startHeartbeat,
  startRebuildWorker,
  startReplayWorker,
  type Building,
  type ProjectionRuntime,
  type ProjectorHealth,
  type RedisReadModels,
} from '@pass/projector';
import { projectorCheck, readSideChecks } from '@pass/query-api';
import { requireSettings, type Settings } from '../config/settings';
import { accessLog } from '../http/access-log';
import { listen, stopAccepting } from '../wiring/http';
import { isEntryPoint, Resources } from '../wiring/lifecycle';
import { createRegistry, opsRouter, readModelsRedisChecks, redisCheck } from '../wiring/ops';
import { runService } from '../wiring/process';
import { catchUp, composeProjection } from '../wiring/read-side';
import { closeRedis, openReadModelsRedis, openRedis, redisKeys } from '../wiring/redis';
import { projectorRequires } from './requirements';

export async function startProjectorService(settings: Settings, logger: Logger) {
  const keys = redisKeys(settings.redisPrefix);
  const resources = new Resources();
  try {
    const eventStore = await openPersonalDataEventStore(settings.eventStoreUrl, { logger });
    resources.add(() => eventStore.close());
    const redis = openRedis(settings.redisUrl!, 'projector', logger);
    resources.add(() => closeRedis(redis));
    const readModelsRedis = openReadModelsRedis(settings, 'projector', logger, redis, resources);

    const registry = createRegistry('projector');
    const { group, readModels, leader } = joinGroup({ settings, logger, keys, eventStore, redis, readModelsRedis, registry });
    group.start();
    resources.add(() => group.stop());
    // The admin's replays run on every projector of the group, beside the leader's rebuilds, into keyspaces that expire.
    const replayKeys = { root: keys.replayReadModels, stateRoot: keys.replayStates };
    const replays = await startReplayWorker({ redisUrl: settings.redisUrl!, prefix: keys.bull, readModelsRedis, stateRedis: redis, ...replayKeys, eventStore, logger, liveReadModels: readModels });
    resources.add(() => replays.close());

    const leaderCheck = projectorCheck(() => leader()!.projection.live(), settings.readyMaxLag);
    const app = express();
    app.disable('x-powered-by');
    app.use(accessLog({ logger }));
    app.use(
      opsRouter({
        service: 'projector',
        mode: 'distributed',
        eventStore,
        registry,
        logger,
        checks: [
          ...readSideChecks({ readModels, eventStore }),
          // A standby is ready: it has nothing to catch up until it leads.
          { name: leaderCheck.name, check: () => (leader() ? leaderCheck.check() : Promise.resolve()) },
          redisCheck('redis', redis),
          ...readModelsRedisChecks(readModelsRedis, redis),
        ],
      }),
    );
    app.get('/status', async (_req, res, next) => {
      try {
        const leadership = group.status();
        const leading = leader();
        if (!leading) return void res.json({ leadership });
        res.json({ ...(await leading.projection.status()), health: liveHealth(leading.projection) ?? null, leadership });
      } catch (error) {
        next(error);
      }
    });
    const server = createServer(app);
    const url = await listen(server, settings.host, settings.projectorPort);
    resources.add(() => stopAccepting(server));
    return { url, eventStore, close: resources.close };
  } catch (error) {
    await resources.close().catch(() => undefined);
    throw error;
  }
}

interface LeaderParts {
  projection: ProjectionRuntime;
  stop(): Promise<void>;
}

interface GroupDeps {
  settings: Settings;
  logger: Logger;
  keys: ReturnType<typeof redisKeys>;
  eventStore: Awaited<ReturnType<typeof openPersonalDataEventStore>>;
  redis: ReturnType<typeof openRedis>;
  readModelsRedis: ReturnType<typeof openReadModelsRedis>;
  registry: Registry;
}

/**
 * This process's place in the projectors' group: the leaders' lease, its version's builder lease
 * (blue/green), the read models fenced by whichever of them it writes under, and what it runs as
 * leader or as builder.
 */
function joinGroup(deps: GroupDeps) {
  const { settings, logger, keys, eventStore, readModelsRedis, registry } = deps;
  const instance = settings.projectorInstance ?? `${hostname()}-${process.pid}`;
  const code = projectionFingerprint() ?? 'unreadable';
  const fingerprint = settings.projectionVersion ? createHash('sha256').update(`${code}\n${settings.projectionVersion}`).digest('hex') : code;
  const lease = new RedisLease(readModelsRedis, keys.readModels, instance, settings.projectorLeaseMs);
  const builderLease = new RedisLease(readModelsRedis, keys.readModels, instance, settings.projectorLeaseMs, `build:${fingerprint.slice(0, 12)}`);
  let writingUnder = lease;
  const readModels = createRedisReadModels({ redis: readModelsRedis, root: keys.readModels, fencing: { token: () => writingUnder.token() } });
  const versions = new ProjectionVersions(readModelsRedis, keys.readModels, fingerprint);
  let leader: LeaderParts | undefined;
  const group = new LeaderGroup({
    lease,
    logger,
    registry,
    roster: { redis: readModelsRedis, root: keys.readModels },
    upgrades: {
      versions,
      builderLease,
      activeId: () => readModels.activeId(),
      build: async () => ((writingUnder = builderLease), await buildBeside({ eventStore, readModels, versions, logger, registry })),
    },
    lead: async (epoch, built) => {
      writingUnder = lease;
      const parts = await lead({ ...deps, readModels, lease, versions, epoch, built });
      leader = parts;
      return { stop: async () => ((leader = undefined), await parts.stop()) };
    },
  });
  return { group, readModels, leader: () => leader };
}

/** This version's keyspace, projected from the store's start beside the readers' and kept live, unpublished. */
async function buildBeside(deps: { eventStore: GroupDeps['eventStore']; readModels: RedisReadModels; versions: ProjectionVersions; logger: Logger; registry: Registry }): Promise<Building> {
  const keyspaceId = buildKeyspaceId(deps.versions.fingerprint);
  await deps.readModels.raiseFence(keyspaceId);
  await deps.versions.claim(keyspaceId);
  const projector = createProjector({ eventStore: deps.eventStore, readModels: deps.readModels, logger: deps.logger, keyspaceId, metrics: deps.registry });
  await projector.start();
  let caught = false;
  // Caught up includes its deferred search index, as a rebuild's switch waits for.
  void projector
    .caughtUp()
    .then(() => projector.settled())
    .then(() => (caught = true), () => undefined);
  return { keyspaceId, caughtUp: () => caught, stop: () => projector.stop() };
}

/**
 * What the leader of the group runs: the projection into the fenced read models, the rebuild
 * worker and the heartbeat query-api's readiness reads. The fence of the readers' keyspace is
 * raised first, so a batch of the previous leader still in flight is refused. The heartbeat
 * starts once caught up: until then the previous leader's last beat stands.
 */
async function lead(
  deps: GroupDeps & { readModels: RedisReadModels; lease: RedisLease; versions: ProjectionVersions; epoch: number; built: Building | undefined },
): Promise<LeaderParts> {
  const { settings, logger, keys, eventStore, redis, readModels, lease, registry, built } = deps;
  const outdated = await switchToBuilt(readModels, deps.versions, built);
  // A rebuild the previous leader left unfinished is run again here (its keyspace is dropped at start).
  const { state: stored } = (await readRebuildState(redis, keys.rebuildState)).rebuild;
  const interrupted = stored === 'running' || stored === 'switching';
  const writeRebuildState = rebuildStateWriter(redis, keys.rebuildState, logger);
  const projection = composeProjection({
    eventStore,
    readModels,
    publisher: redisEmitterPublisher(redis, { key: keys.socketIo }),
    logger,
    registry,
    // A deposed leader's failing rebuild must not overwrite its successor's state.
    onRebuildState: (state, lastError) => lease.holds() && writeRebuildState(state, lastError),
  });
  const parts = new Resources();
  parts.add(() => projection.stop());
  try {
    await catchUp(projection, logger);
    const heartbeat = startHeartbeat({
      redis,
      key: keys.projectorHeartbeat,
      ttlMs: settings.readyMaxHeartbeatSeconds * 1000,
      source: () => (lease.holds() ? liveHealth(projection) : undefined),
      logger,
      registry,
      deleteOnStop: false,
    });
    parts.add(() => heartbeat.stop());
    const worker = startRebuildWorker({ redisUrl: settings.redisUrl!, prefix: keys.bull, stateKey: keys.rebuildState, runtime: projection, logger });
    parts.add(() => worker.close());
    if (interrupted || outdated) {
      logger.warn({ outdated }, outdated ? 'read models projected by another projection version and none built beside; rebuilding them' : 'a rebuild was running when the previous leader went; running it again');
      void projection.runRebuild();
    }
  } catch (error) {
    await parts.close().catch(() => undefined);
    throw error;
  }
  return { projection, stop: parts.close };
}

/**
 * The fence raised on the keyspace this leader writes, and readers switched in one step to the
 * one its version built, if it built one. Resolves whether the readers' keyspace is another
 * version's with none built (then it is rebuilt, readers keeping it until the switch).
 */
async function switchToBuilt(readModels: RedisReadModels, versions: ProjectionVersions, built: Building | undefined): Promise<boolean> {
  if (!built) {
    const active = await readModels.activeId();
    await readModels.raiseFence(active);
    const version = await versions.fingerprintOf(active);
    return version !== null && version !== versions.fingerprint;
  }
  await built.stop();
  await readModels.raiseFence(built.keyspaceId);
  await readModels.activate(built.keyspaceId);
  return false;
}

/** The live projector's own view, or undefined before the runtime has started one. */
function liveHealth(projection: ProjectionRuntime): ProjectorHealth | undefined {
  try {
    return projection.live().health();
  } catch {
    return undefined;
  }
}

if (isEntryPoint(import.meta.url)) {
  await runService('projector', startProjectorService, {
    validate: (settings) => requireSettings(settings, 'projector', projectorRequires),
    extra: (running) => ({ eventStore: running.eventStore.kind }),
  });
}
