import { Router, type RequestHandler } from 'express';
import type { QueryApiDeps } from './deps';
import { adminRoutes } from './admin/routes';
import { queryMetrics } from './metrics';
import { readRoutes } from './reads/routes';

/**
 * The REST reads of api.ts as one router, mounted at the site root (paths start with /api).
 * Failures of the read models answer 503 so a load balancer can retry elsewhere.
 */
export function createQueryApi(deps: QueryApiDeps): Router {
  const router = Router();
  if (deps.metrics) {
    const { querySeconds } = queryMetrics(deps.metrics);
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
  router.use(readRoutes(deps));
  router.use(adminRoutes(deps));
  return router;
}
