import { Router } from 'express';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { EventStore } from '@pass/events';
import { createOpsRouter, type ReadinessCheck } from '@pass/query-api';

/** One Prometheus registry per process, with the Node.js runtime series labelled by service. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface OpsOptions {
  service: string;
  mode: 'standalone' | 'distributed';
  eventStore?: EventStore;
  registry: Registry;
  checks: ReadinessCheck[];
  logger: Logger;
}

/**
 * /healthz (liveness: names the mode and event store, touches no dependency), /readyz (every
 * check passes) and /metrics. query-api's ops router does the last two; this /healthz comes
 * first so operators see which store a process uses.
 */
export function opsRouter(options: OpsOptions): Router {
  const startedAt = Date.now();
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({
      status: 'ok',
      mode: options.mode,
      service: options.service,
      ...(options.eventStore ? { eventStore: options.eventStore.kind } : {}),
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
    });
  });
  router.use(createOpsRouter({ registry: options.registry, checks: options.checks, logger: options.logger }));
  return router;
}

export const eventStoreCheck = (eventStore: EventStore): ReadinessCheck => ({ name: 'event-store', check: () => eventStore.headPosition() });
export const redisCheck = (name: string, redis: { ping(): Promise<unknown> }): ReadinessCheck => ({ name, check: () => redis.ping() });
