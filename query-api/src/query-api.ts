import type { FastLane } from '@pass/events';
import { Router, type RequestHandler } from 'express';
import type { QueryApiDeps } from './deps';
import { adminRoutes } from './admin/routes';
import { queryFastLane } from './http/fast-lane';
import { queryMetrics } from './metrics';
import { publicFastLaneRoutes, readRoutes } from './reads/routes';

interface QueryReads {
  /** Every REST read, mounted at the site root (paths start with /api). */
  router: Router;
  /** The public reads of `router` again, for a request listener in front of Express (infra/src/http/fast-lane.ts). */
  fastLane: FastLane;
}

/**
 * The REST reads of api.ts as one router, mounted at the site root (paths start with /api), and
 * the fast lane's routes over the same route functions (and their cached bodies). Failures of the
 * read models answer 503 so a load balancer can retry elsewhere.
 */
export function createQueryReads(deps: QueryApiDeps): QueryReads {
  const log = deps.logger.child({ component: 'query-api' });
  const querySeconds = deps.metrics ? queryMetrics(deps.metrics).querySeconds : undefined;
  const publicRoutes = publicFastLaneRoutes(deps);

  const router = Router();
  if (querySeconds) {
    const timing: RequestHandler = (req, res, next) => {
      const started = performance.now();
      res.on('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path;
        if (route) querySeconds.observe({ route, status: String(res.statusCode) }, (performance.now() - started) / 1000);
      });
      next();
    };
    router.use('/api', timing);
  }
  router.use(readRoutes(deps, publicRoutes));
  router.use(adminRoutes(deps));

  return { router, fastLane: queryFastLane(publicRoutes, log, querySeconds) };
}
