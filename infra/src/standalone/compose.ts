import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { EventStore } from '@pass/events';
import { openEventStore } from '@pass/events/event-store/open';
import { broadcastPublisher, createMemoryReadModels } from '@pass/projector';
import { attachSocketServer, readSideChecks } from '@pass/query-api';
import type { Settings } from '../config/settings';
import { createAppShell } from '../http/app-shell';
import { composeCommandApi } from '../wiring/command-side';
import { listen, stopAccepting } from '../wiring/http';
import { createRegistry, opsRouter } from '../wiring/ops';
import { catchUp, composeProjection, composeQueryRouter } from '../wiring/read-side';

export interface RunningStandalone {
  url: string;
  server: Server;
  eventStore: EventStore;
  close(): Promise<void>;
}

/**
 * The standalone composition root: one process holding command-api, projector, query-api and
 * the built web app on one origin, on the embedded event store unless EVENT_STORE_URL says
 * otherwise. Read models live in memory and are rebuilt from the store at every start; the
 * returned promise resolves once they have caught up (until then /readyz answers 503).
 */
export async function startStandalone(settings: Settings, logger: Logger): Promise<RunningStandalone> {
  mkdirSync(settings.dataDir, { recursive: true });
  const eventStore = await openEventStore(settings.eventStoreUrl, { logger });
  logger.info({ eventStore: eventStore.kind }, 'event store open');
  const cleanup: Array<() => Promise<void>> = [() => eventStore.close()];
  try {
    const commandApi = await composeCommandApi(settings, eventStore, logger);
    cleanup.unshift(() => commandApi.close());

    const registry = createRegistry('standalone');
    const readModels = createMemoryReadModels();
    // The Socket.IO server exists before the projector so its first batch already reaches browsers.
    const server = createServer();
    const sockets = attachSocketServer(server, {
      readModels,
      sessions: commandApi.sessions,
      gateway: commandApi.gateway,
      logger,
      metrics: registry,
    });
    const projection = composeProjection({ eventStore, readModels, publisher: broadcastPublisher(sockets.io), logger, registry });

    const app = createAppShell({
      logger,
      trustProxy: settings.trustProxy,
      webDistDir: settings.webDistDir,
      routers: [
        opsRouter({
          service: 'standalone',
          mode: 'standalone',
          eventStore,
          registry,
          logger,
          checks: readSideChecks({ readModels, eventStore, projector: projection }),
        }),
        composeQueryRouter({ readModels, sessions: commandApi.sessions, gateway: commandApi.gateway, eventStore, logger, registry, projections: projection }),
        // Also serves GET /uploads/* (command-api owns the uploads folder).
        commandApi.router,
      ],
    });
    server.on('request', app);
    const url = await listen(server, settings.host, settings.port);
    cleanup.unshift(async () => {
      const drained = stopAccepting(server);
      await sockets.close();
      await drained;
      await projection.stop();
    });

    await catchUp(projection, logger);

    const close = once(() => runAll(cleanup));
    return { url, server, eventStore, close };
  } catch (error) {
    await runAll(cleanup).catch((closeError: unknown) => logger.warn({ err: closeError }, 'cleanup after a failed start failed'));
    throw error;
  }
}

/** Runs each step in order; every step runs even if one fails, and the first failure is rethrown. */
export async function runAll(steps: Array<() => Promise<void>>): Promise<void> {
  let first: unknown;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}

export function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
