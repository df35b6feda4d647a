import type { IncomingMessage } from 'node:http';
import type { AuthenticatedRequest } from '@pass/events';
import type { Request, RequestHandler, Response } from 'express';
import { authOf } from './auth';
import { failureOf, type ApiFailure } from './errors';

/** A route's answer before it is written: the same whichever lane writes it. */
export interface ApiAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What a route reads of its request, already verified and parsed by whichever lane runs it. */
export interface ApiRequest {
  req: IncomingMessage;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
  auth: AuthenticatedRequest;
  /** The client's address as `trust proxy` resolves it (Express's `req.ip`). */
  clientAddress: string | undefined;
}

/** A POST route both Express and the fast lane (infra/src/http/fast-lane.ts) serve with this one function. */
export interface HotRoute {
  path: string;
  answer(request: ApiRequest): ApiAnswer | Promise<ApiAnswer>;
}

/** command-api's hot POST routes with what a lane needs around them: session verification and the error translation. */
export interface HotLane {
  routes: readonly HotRoute[];
  verify(cookieHeader: string | undefined): Promise<AuthenticatedRequest>;
  /** `toApiFailure`, logging 5xx on the request's logger (as the Express error handler does). */
  failureOf(error: unknown, req: IncomingMessage): ApiFailure;
}

export function sendAnswer(res: Response, answer: ApiAnswer): void {
  res.status(answer.status);
  if (answer.headers) res.set(answer.headers);
  res.json(answer.body);
}

/** The Express handler of a hot route: errors go on to the router's `apiErrorHandler`. */
export function expressHandler(route: HotRoute): RequestHandler {
  return async (req: Request, res: Response) => {
    sendAnswer(res, await route.answer({ req, body: req.body, auth: authOf(res), clientAddress: req.ip }));
  };
}

export function hotLane(routes: readonly HotRoute[], verify: HotLane['verify']): HotLane {
  return { routes, verify, failureOf };
}
