/**
 * command-api as its own process (distributed mode): the /api routes that change state and
 * GET /uploads/*, on a shared event store (PostgreSQL or EventStoreDB), with sessions and login
 * limits in Redis and image jobs queued for the image-worker processes. Scale it out freely:
 * commands on one stream are protected by the store's expected-revision check across instances.
 */
import type { Logger } from 'pino';
import { openPersonalDataEventStore } from '@pass/events/store';
import { requireSettings, type Settings } from '../config/settings';
import { composeCommandApi } from '../wiring/command-side';
import { createShellServer, listen, stopAccepting } from '../wiring/http';
import { isEntryPoint, Resources } from '../wiring/lifecycle';
import { createRegistry, eventStoreCheck, opsRouter, redisCheck } from '../wiring/ops';
import { runService } from '../wiring/process';
import { commandApiRequires } from './requirements';

export async function startCommandApiService(settings: Settings, logger: Logger) {
  const eventStore = await openPersonalDataEventStore(settings.eventStoreUrl, { logger });
  const resources = new Resources();
  resources.add(() => eventStore.close());
  try {
    // Sessions, limits, snapshots and image jobs in Redis (REDIS_URL is required here): readiness checks that connection.
    // Images are re-encoded by the image-worker processes; this one only queues and waits.
    const registry = createRegistry('command-api');
    const { commandApi, redis } = await composeCommandApi(settings, eventStore, logger, resources, registry, 'image-worker');

    const ops = opsRouter({ service: 'command-api', mode: 'distributed', eventStore, registry, logger, checks: [eventStoreCheck(eventStore), redisCheck('redis', redis!)] });
    // The hot POST routes skip Express (same shell steps, same answers); the rest is the shell's.
    const server = createShellServer(settings, logger, { routers: [ops, commandApi.router], fastLanes: [commandApi.fastLane], serveWebApp: false });
    const url = await listen(server, settings.host, settings.port);
    resources.add(() => stopAccepting(server));
    return { url, eventStore, close: resources.close };
  } catch (error) {
    await resources.close().catch(() => undefined);
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) {
  await runService('command-api', startCommandApiService, {
    validate: (settings) => requireSettings(settings, 'command-api', commandApiRequires),
    extra: (running) => ({ eventStore: running.eventStore.kind }),
  });
}
