import { Router } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/** One dependency the process needs to serve traffic; throws (or rejects) when it cannot. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
}

interface OpsDeps {
  registry: Registry;
  checks: ReadinessCheck[];
  logger: Logger;
  /** A check slower than this counts as failed. */
  timeoutMs?: number;
}

/**
 * /healthz: the process answers (liveness; never touches dependencies, so a Redis outage does
 * not get every instance restarted). /readyz: every readiness check passes within the timeout
 * (503 with the failing ones otherwise). /metrics: Prometheus text of the registry.
 */
export function createOpsRouter(deps: OpsDeps): Router {
  const router = Router();
  const timeoutMs = deps.timeoutMs ?? 2_000;
  const log = deps.logger.child({ component: 'ops' });

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      deps.checks.map(async ({ name, check }) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, fail) => {
              timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
          return { name, ok: true as const };
        } catch (error) {
          return { name, ok: false as const, error: error instanceof Error ? error.message : String(error) };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const failing = results.filter((r) => !r.ok);
    if (failing.length > 0) log.warn({ failing }, 'not ready');
    res.status(failing.length === 0 ? 200 : 503).json({ status: failing.length === 0 ? 'ready' : 'not ready', checks: results });
  });

  router.get('/metrics', async (_req, res) => {
    res.type(deps.registry.contentType).send(await deps.registry.metrics());
  });

  return router;
}

type ProjectorLike = {
  status(): Promise<{ caughtUp: boolean; lastError: string | null; lagEvents: number; lagSeconds: number; lagEventsCapped?: boolean }>;
};

/** How far behind the store the projector may fall before the process stops answering ready. */
export interface MaxLag {
  events: number;
  seconds: number;
}

/** Probes this close together share one reading of the projector's lag (it reads the store). */
export const PROJECTOR_STATUS_CACHE_MS = 1_000;

/**
 * The projector is ready once it has caught up (serving half-built read models at start would
 * show wrong figures) and, from then on, while it is behind by at most `maxLag` events and
 * seconds (the age of the oldest unprojected event). Read again at most every second, so it
 * comes back by itself and a burst of probes costs one lag reading.
 */
export function projectorCheck(source: () => ProjectorLike, maxLag?: MaxLag, cacheMs = PROJECTOR_STATUS_CACHE_MS): ReadinessCheck {
  const status = cachedFor(cacheMs, () => source().status());
  return {
    name: 'projector',
    check: async () => {
      const projector = await status();
      if (!projector.caughtUp) throw new Error(projector.lastError ?? 'still catching up');
      if (!maxLag) return;
      // A count that stopped at the scan limit is at least that many.
      const tooManyEvents = projector.lagEvents > maxLag.events || (projector.lagEventsCapped === true && projector.lagEvents >= maxLag.events);
      if (tooManyEvents || projector.lagSeconds > maxLag.seconds) {
        // The projector's own error says why it is behind (Redis refusing writes, an unreadable event).
        const why = projector.lastError ? `; last error: ${projector.lastError}` : '';
        throw new Error(
          `behind by ${projector.lagEvents}${projector.lagEventsCapped ? '+' : ''} events and ${Math.round(projector.lagSeconds)} s (allowed ${maxLag.events} events, ${maxLag.seconds} s)${why}`,
        );
      }
    },
  };
}

/** The same answer (or failure) for `ms` after it settles. */
function cachedFor<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let last: { value: Promise<T>; until: number } | undefined;
  return () => {
    const now = performance.now();
    if (last && now < last.until) return last.value;
    const value = read();
    const entry = { value, until: Infinity };
    const settled = () => (entry.until = performance.now() + ms);
    value.then(settled, settled);
    last = entry;
    return value;
  };
}

/** Readiness checks for the read side. */
export function readSideChecks(deps: {
  readModels: { activeId(): Promise<string> };
  eventStore?: { headPosition(): Promise<unknown> };
  /** The live projector, or a ProjectionRuntime (its current live projector is checked). */
  projector?: ProjectorLike | { live(): ProjectorLike };
  /** With a projector: not ready while it is behind by more than this (default: only until caught up). */
  maxLag?: MaxLag;
  /** How long probes share one reading of the projector (default PROJECTOR_STATUS_CACHE_MS). */
  statusCacheMs?: number;
}): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'read-models', check: () => deps.readModels.activeId() }];
  if (deps.eventStore) checks.push({ name: 'event-store', check: () => deps.eventStore!.headPosition() });
  if (deps.projector) {
    const given = deps.projector;
    checks.push(projectorCheck(() => ('live' in given ? given.live() : given), deps.maxLag, deps.statusCacheMs));
  }
  return checks;
}
