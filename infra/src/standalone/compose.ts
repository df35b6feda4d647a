import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import type { Logger } from 'pino';
import type { EventStore } from '@pass/events';
import { openEventStore } from '@pass/events/event-store/open';
import type { Settings } from '../config/settings';
import { createAppShell } from '../http/app-shell';

export interface RunningStandalone {
  url: string;
  server: Server;
  eventStore: EventStore;
  close(): Promise<void>;
}

/**
 * The standalone composition root: one process holding command-api, projector, query-api and
 * the built web app, on the embedded event store unless EVENT_STORE_URL says otherwise.
 */
export async function startStandalone(settings: Settings, logger: Logger): Promise<RunningStandalone> {
  mkdirSync(settings.dataDir, { recursive: true });
  const eventStore = await openEventStore(settings.eventStoreUrl, { logger });
  logger.info({ eventStore: eventStore.kind }, 'event store open');

  const startedAt = Date.now();
  const ops = Router();
  ops.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', mode: 'standalone', eventStore: eventStore.kind, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) });
  });
  const app = createAppShell({
    logger,
    webDistDir: settings.webDistDir,
    routers: [ops],
  });

  const server = createServer(app);
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(settings.port, settings.host, () => ready());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://localhost:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting first, then let in-flight requests finish before the store closes.
      await new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections();
      await eventStore.close();
    })());
  return { url, server, eventStore, close };
}
