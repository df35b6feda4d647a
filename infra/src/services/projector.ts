/**
 * The projector as its own process (distributed mode): one instance per deployment. It follows
 * the shared event store into the Redis read models (each batch stored with its checkpoint in
 * one atomic write), publishes live events to every query-api through the Socket.IO Redis
 * emitter, and runs the rebuilds and replays query-api queues. A small HTTP port
 * (PROJECTOR_PORT) serves /healthz, /readyz (caught up, store and Redis answer), /metrics and /status.
 */
import { createServer } from 'node:http';
import express from 'express';
import type { Logger } from 'pino';
import { openPersonalDataEventStore } from '@pass/events/store';
import { createRedisReadModels, rebuildStateWriter, redisEmitterPublisher, startHeartbeat, startRebuildWorker, startReplayWorker, type ProjectionRuntime, type ProjectorHealth } from '@pass/projector';
import { readSideChecks } from '@pass/query-api';
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
    const readModels = createRedisReadModels({ redis: readModelsRedis, root: keys.readModels });
    const projection = composeProjection({
      eventStore,
      readModels,
      publisher: redisEmitterPublisher(redis, { key: keys.socketIo }),
      logger,
      registry,
      onRebuildState: rebuildStateWriter(redis, keys.rebuildState, logger),
    });
    resources.add(() => projection.stop());
    // query-api's /readyz reads this; stopped (and deleted) before the projection stops.
    const heartbeat = startHeartbeat({
      redis,
      key: keys.projectorHeartbeat,
      ttlMs: settings.readyMaxHeartbeatSeconds * 1000,
      source: () => liveHealth(projection),
      logger,
      registry,
    });
    resources.add(() => heartbeat.stop());
    const worker = startRebuildWorker({ redisUrl: settings.redisUrl!, prefix: keys.bull, stateKey: keys.rebuildState, runtime: projection, logger });
    resources.add(() => worker.close());
    // The admin's replays run here too, beside the rebuilds, into keyspaces that expire.
    const replayKeys = { root: keys.replayReadModels, stateRoot: keys.replayStates };
    const replays = await startReplayWorker({ redisUrl: settings.redisUrl!, prefix: keys.bull, readModelsRedis, stateRedis: redis, ...replayKeys, eventStore, logger, liveReadModels: readModels });
    resources.add(() => replays.close());

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
          ...readSideChecks({ readModels, eventStore, projector: projection, maxLag: settings.readyMaxLag }),
          redisCheck('redis', redis),
          ...readModelsRedisChecks(readModelsRedis, redis),
        ],
      }),
    );
    app.get('/status', async (_req, res, next) => {
      try {
        res.json({ ...(await projection.status()), health: liveHealth(projection) ?? null });
      } catch (error) {
        next(error);
      }
    });
    const server = createServer(app);
    // Listening before catch-up: the status port shows progress while the backlog is applied.
    const url = await listen(server, settings.host, settings.projectorPort);
    resources.add(() => stopAccepting(server));

    await catchUp(projection, logger);
    return { url, eventStore, close: resources.close };
  } catch (error) {
    await resources.close().catch(() => undefined);
    throw error;
  }
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
