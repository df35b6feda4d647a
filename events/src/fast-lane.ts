// The HTTP fast lane's contract (infra/src/http/fast-lane.ts): a service offers a `FastLane`, its
// hot routes plus what the lane needs around them, and serves the same routes behind Express with
// the same functions. Node-only (Buffer, node:http): the server root, never the browser kernel.
import type { IncomingMessage } from 'node:http';
import type { AuthenticatedRequest } from './sessions';

/** A JSON body serialised once and shared by every request while the read models stand still. */
export interface PreparedJson {
  /** The UTF-8 JSON text, exactly as `res.json` would have produced it. */
  readonly bytes: Buffer;
}

/** The JSON text of `value` as bytes, to be sent as many times as needed. */
export function prepareJson(value: unknown): PreparedJson {
  return { bytes: Buffer.from(JSON.stringify(value) ?? '') };
}

/**
 * A route's answer before it is written, the same whichever lane writes it: a value to send as
 * JSON, or a body already serialised (a shared one; the lane may keep derived data, such as its
 * ETag, for as long as it is handed the same object).
 */
export type FastLaneAnswer = { status: number; headers?: Record<string, string> } & ({ body: unknown } | { prepared: PreparedJson });

/** What a POST route reads of its request, already verified and parsed by whichever lane runs it. */
export interface FastLaneRequest {
  req: IncomingMessage;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
  auth: AuthenticatedRequest;
  /** The client's address as `trust proxy` resolves it (Express's `req.ip`). */
  clientAddress: string | undefined;
}

/** What a route answers, by method: a POST its verified request, a (public) GET its parsed query (Express's `req.query`). */
interface FastLaneInputs {
  POST: FastLaneRequest;
  GET: unknown;
}

/**
 * A route both Express and the fast lane serve with this one function, found by method and exact
 * path. `FastLaneRoute` is any of them; `FastLaneRoute<'POST'>` one method's.
 */
export type FastLaneRoute<M extends keyof FastLaneInputs = keyof FastLaneInputs> = {
  [K in M]: { method: K; path: string; answer(input: FastLaneInputs[K]): FastLaneAnswer | Promise<FastLaneAnswer> };
}[M];

/** A service's hot routes with what the lane needs around them. */
export interface FastLane {
  routes: readonly FastLaneRoute[];
  /** The session of a POST's Cookie header; required when a route is a POST (GET routes are public). */
  verify?(cookieHeader: string | undefined): Promise<AuthenticatedRequest>;
  /** The answer to a route's error (`path`: the route's), logged as the service's Express error handler logs it. */
  failureOf(error: unknown, req: IncomingMessage, path: string): FastLaneAnswer;
  /** Records a finished request in the service's latency histogram, as its Express timing middleware does. */
  observe?(path: string, status: number, seconds: number): void;
}

/** What `sendFastLaneAnswer` uses of an Express response. */
interface ExpressResponse {
  status(code: number): unknown;
  set(field: string, value: string): unknown;
  set(headers: Record<string, string>): unknown;
  json(body: unknown): unknown;
  send(body: Buffer): unknown;
}

/** Writes `answer` through Express: `res.json`, or `res.send` of the prepared bytes with res.json's type. */
export function sendFastLaneAnswer(res: ExpressResponse, answer: FastLaneAnswer): void {
  res.status(answer.status);
  if (answer.headers) res.set(answer.headers);
  if ('prepared' in answer) {
    res.set('Content-Type', 'application/json; charset=utf-8');
    res.send(answer.prepared.bytes);
  } else {
    res.json(answer.body);
  }
}

/**
 * Marks an answer as the session's own: `Cache-Control: no-store`, so no browser or shared cache
 * keeps a member's or admin's data. Called where a request's session is read (command-api's
 * `authenticate`, query-api's `authOf`, the fast lane's POST verification), so every answer that
 * depends on the session carries it; public reads never read the session and keep their validators.
 */
export function markSessionAnswer(res: { setHeader(name: string, value: string): unknown }): void {
  res.setHeader('Cache-Control', SESSION_CACHE_CONTROL);
}

/** The Cache-Control of every answer that depends on the session (`markSessionAnswer`). */
export const SESSION_CACHE_CONTROL = 'no-store';
