import { Router } from 'express';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Cluster, Redis } from 'ioredis';
import type { EventStore } from '@pass/events';
import { LAG_SCAN_LIMIT, lagOf, readHeartbeat, type ReadModelStore } from '@pass/projector';
import { createOpsRouter, projectorCheck, type MaxLag, type ReadinessCheck } from '@pass/query-api';

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
  readinessGauge(options.registry, options.checks);
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
/** The read models' own connection (the Cluster) as `redis-read-models`; nothing when they share the process's `redis`. */
export const readModelsRedisChecks = (readModelsRedis: Redis | Cluster, redis: Redis): ReadinessCheck[] =>
  readModelsRedis !== redis ? [redisCheck('redis-read-models', readModelsRedis)] : [];

/**
 * query-api's view of a projector running in another process: its heartbeat in Redis (gone
 * once it has not beaten within its time to live: stopped, paused, cut off), whether it has
 * caught up and its last error, and the lag measured here (the store's head against the active
 * keyspace's checkpoint), held to the same limits as the projector's own /readyz.
 */
export function remoteProjectorCheck(deps: {
  redis: Redis | Cluster;
  heartbeatKey: string;
  readModels: ReadModelStore;
  eventStore: EventStore;
  maxLag: MaxLag;
  statusCacheMs?: number;
}): ReadinessCheck {
  const status = async () => {
    const beat = await readHeartbeat(deps.redis, deps.heartbeatKey);
    if (!beat) throw new Error('no projector heartbeat in Redis (the projector is stopped, paused or cannot reach Redis)');
    const lag = await lagOf(await deps.readModels.active(), deps.eventStore);
    return { caughtUp: beat.caughtUp, lastError: beat.lastError, lagEvents: lag.lagEvents, lagSeconds: lag.lagSeconds, lagEventsCapped: lag.lagEvents >= LAG_SCAN_LIMIT };
  };
  return projectorCheck(() => ({ status }), deps.maxLag, deps.statusCacheMs);
}

const READY_METRIC = 'pass_ready_check';
/** As /readyz's own limit: a check slower than this counts as failed. */
const CHECK_TIMEOUT_MS = 2_000;

async function passes(check: ReadinessCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check.check(), new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('timeout')), CHECK_TIMEOUT_MS)))]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * /readyz's checks as a series, run at each scrape (1 passes, 0 fails), so an alert can say
 * which instance is not ready and why even when no orchestrator probes it.
 */
function readinessGauge(registry: Registry, checks: ReadinessCheck[]): void {
  if (registry.getSingleMetric(READY_METRIC)) return;
  new Gauge({
    name: READY_METRIC,
    help: "Each of /readyz's checks at this scrape: 1 passes, 0 fails (the store, Redis, the projector's lag)",
    labelNames: ['check'],
    registers: [registry],
    async collect() {
      const results = await Promise.all(checks.map(async (check) => [check.name, await passes(check)] as const));
      this.reset();
      for (const [check, ok] of results) this.set({ check }, ok ? 1 : 0);
    },
  });
}
