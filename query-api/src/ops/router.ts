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

type ProjectorLike = { status(): Promise<{ caughtUp: boolean; lastError: string | null }> };

/** Readiness checks for the read side. */
export function readSideChecks(deps: {
  readModels: { activeId(): Promise<string> };
  eventStore?: { headPosition(): Promise<unknown> };
  /** The live projector, or a ProjectionRuntime (its current live projector is checked). */
  projector?: ProjectorLike | { live(): ProjectorLike };
}): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'read-models', check: () => deps.readModels.activeId() }];
  if (deps.eventStore) checks.push({ name: 'event-store', check: () => deps.eventStore!.headPosition() });
  if (deps.projector) {
    const given = deps.projector;
    checks.push({
      name: 'projector',
      check: async () => {
        const projector = 'live' in given ? given.live() : given;
        // Serving half-built read models at start would show wrong figures; wait for catch-up.
        const s = await projector.status();
        if (!s.caughtUp) throw new Error(s.lastError ?? 'still catching up');
      },
    });
  }
  return checks;
}
