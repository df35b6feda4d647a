import { sendFastLaneAnswer, type FastLane, type FastLaneRoute } from '@pass/events';
import type { Request, RequestHandler, Response } from 'express';
import { authOf } from './auth';
import { failureOf } from './errors';

/** The Express handler of a fast-lane POST route: errors go on to the router's `apiErrorHandler`. */
export function expressHandler(route: FastLaneRoute<'POST'>): RequestHandler {
  return async (req: Request, res: Response) => {
    sendFastLaneAnswer(res, await route.answer({ req, body: req.body, auth: authOf(res), clientAddress: req.ip }));
  };
}

/**
 * command-api's fast lane (infra/src/http/fast-lane.ts): its hot POST routes with session
 * verification and the error translation (`toApiFailure`, logging 5xx on the request's logger as
 * the Express error handler does).
 */
export function commandFastLane(routes: readonly FastLaneRoute<'POST'>[], verify: NonNullable<FastLane['verify']>): FastLane {
  return { routes, verify, failureOf };
}
