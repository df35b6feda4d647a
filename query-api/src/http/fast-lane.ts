import type { FastLane, FastLaneRoute } from '@pass/events';
import type { Logger } from 'pino';
import type { Histogram } from 'prom-client';
import { READS_UNAVAILABLE } from './handler';

/**
 * query-api's fast lane (infra/src/http/fast-lane.ts): its public reads, a failed read answered
 * 503 and logged as `reader` does, and each finished read timed in `querySeconds` (when metrics
 * are kept) as the router's timing middleware does.
 */
export function queryFastLane(routes: readonly FastLaneRoute<'GET'>[], log: Logger, querySeconds: Histogram<'route' | 'status'> | undefined): FastLane {
  return {
    routes,
    failureOf: (error, _req, path) => {
      log.error({ err: error, path }, 'read failed');
      return { status: 503, body: { error: READS_UNAVAILABLE } };
    },
    ...(querySeconds && { observe: (route: string, status: number, seconds: number) => querySeconds.observe({ route, status: String(status) }, seconds) }),
  };
}
