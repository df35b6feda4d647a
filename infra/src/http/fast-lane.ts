import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { markSessionAnswer, type FastLane, type FastLaneAnswer, type FastLaneRoute, type PreparedJson } from '@pass/events';
import type { Express } from 'express';
import { COMPRESSION_THRESHOLD, type FastLaneShell } from './app-shell';
import { CROSS_SITE_MESSAGE } from './csrf';
import { checkFastLaneLibraries } from './fast-lane-libraries';

/** A `FastLaneRoute` as the listener serves it, around everything the lane and the shell add. */
interface LaneRoute {
  /** GET: the query string is the read's input. POST: a query string sends the request to Express. */
  takesQuery: boolean;
  answer(req: IncomingMessage, res: ServerResponse): Promise<FastLaneAnswer>;
}

type EtagFn = (body: Buffer, encoding?: string) => string | undefined;

/**
 * A plain node:http listener in front of the Express app that serves the `FastLane`s' hot routes
 * without Express's router and request and response prototypes, which under load cost more than
 * the routes (docs/architecture.md, "HTTP hot paths"). A route is found by method and exact path
 * (HEAD as its GET); anything else, a POST with a query string or a GET with a body, goes to
 * Express untouched. The lane runs the shell's own steps in the shell's order and answers with
 * the app's own ETag, query parser, freshness and trust-proxy functions, so a client cannot tell
 * the lanes apart; what it relies on inside Express is checked by `checkFastLaneLibraries`.
 */
export function withFastLane(app: Express, shell: FastLaneShell, ...lanes: FastLane[]): RequestListener {
  checkFastLaneLibraries(app);
  // Express's own `req.ip` and `req.query` getters, run on the bare request's parts: `trust
  // proxy` and the query parser resolved exactly as there.
  const clientAddressOf = (req: IncomingMessage) => expressGetter(app, 'ip', { app, headers: req.headers, socket: req.socket, connection: req.socket }) as string | undefined;
  const queryOf = (req: IncomingMessage) => expressGetter(app, 'query', { app, url: req.url });
  const send = answerWriter(app, shell);
  const routes = new Map(
    lanes.flatMap((lane) =>
      lane.routes.map((route): [string, LaneRoute] => {
        const served = route.method === 'POST' ? postRoute(lane, route, shell, clientAddressOf) : getRoute(lane, route, queryOf);
        return [`${route.method} ${route.path}`, lane.observe ? observed(served, route.path, lane.observe.bind(lane)) : served];
      }),
    ),
  );

  const serve = async (req: IncomingMessage, res: ServerResponse, route: LaneRoute): Promise<void> => {
    shell.beginRequest(req, res);
    // Every lane route is an /api path.
    shell.writeSecurityHeaders(res, 'api');
    send(req, res, await route.answer(req, res));
  };

  return (req, res) => {
    const url = req.url ?? '';
    const queryAt = url.indexOf('?');
    const route = routes.get(`${req.method === 'HEAD' ? 'GET' : req.method} ${queryAt === -1 ? url : url.slice(0, queryAt)}`);
    // A GET carrying a body would meet the JSON parser behind Express: such oddities go there.
    const carriesBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    if (!route || (queryAt !== -1 && !route.takesQuery) || (route.takesQuery && carriesBody)) return void app(req, res);
    serve(req, res, route).catch((error: unknown) => {
      // Only a fault of the lane itself gets here (every route error is translated above).
      send(req, res, shell.failure(error, req));
    });
  };
}

/** One of Express's request getters (`req.ip`, `req.query`, `req.fresh`) run on `receiver`. */
function expressGetter(app: Express, name: 'ip' | 'query' | 'fresh', receiver: object): unknown {
  return Reflect.get(app.request, name, receiver);
}

/**
 * Writes a lane's answer as `res.json` / `res.send` and the shell's compression would: the app's
 * own ETag function, conditional GET through Express's `req.fresh`, HEAD, and compression above
 * its threshold.
 */
function answerWriter(app: Express, shell: FastLaneShell): (req: IncomingMessage, res: ServerResponse, answer: FastLaneAnswer) => void {
  const etagOf = app.get('etag fn') as EtagFn | undefined;
  const isFresh = (req: IncomingMessage, res: ServerResponse): boolean =>
    (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) &&
    expressGetter(app, 'fresh', { method: req.method, headers: req.headers, res: { statusCode: res.statusCode, get: (name: string) => res.getHeader(name) } }) === true;
  // A shared body keeps its ETag for as long as it is shared: a hit hashes nothing.
  const preparedEtags = new WeakMap<PreparedJson, string | undefined>();
  const etagOfPrepared = (prepared: PreparedJson): string | undefined => {
    if (!preparedEtags.has(prepared)) preparedEtags.set(prepared, etagOf?.(prepared.bytes));
    return preparedEtags.get(prepared);
  };

  return (req, res, answer) => {
    if (res.headersSent) return;
    res.statusCode = answer.status;
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    // As res.json: the JSON text, its type, length and (weak) ETag.
    const chunk = 'prepared' in answer ? answer.prepared.bytes : Buffer.from(JSON.stringify(answer.body) ?? '');
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', String(chunk.length));
    const etag = 'prepared' in answer ? etagOfPrepared(answer.prepared) : etagOf?.(chunk);
    if (etag) res.setHeader('ETag', etag);
    if (isFresh(req, res)) {
      // As res.send: 304 without the body's headers; compression then leaves an untyped answer alone (no Vary).
      res.statusCode = 304;
      res.removeHeader('Content-Type');
      res.removeHeader('Content-Length');
      return void res.end();
    }
    const head = req.method === 'HEAD';
    // Large enough to compress, for a client that accepts an encoding: the shell's compression
    // decides, exactly as behind Express. Without Accept-Encoding, or for HEAD, it would only
    // mark the answer as depending on Accept-Encoding, as it does below the threshold.
    if (chunk.length >= COMPRESSION_THRESHOLD && !head && req.headers['accept-encoding'] !== undefined) {
      shell.compression(req as never, res as never, () => res.end(chunk));
      return;
    }
    res.setHeader('Vary', 'Accept-Encoding');
    if (head) res.end();
    else res.end(chunk);
  };
}

/** A POST: CSRF, the JSON body and the session as the shell and its router would. */
function postRoute(lane: FastLane, route: FastLaneRoute<'POST'>, shell: FastLaneShell, clientAddressOf: (req: IncomingMessage) => string | undefined): LaneRoute {
  if (!lane.verify) throw new Error(`The fast lane's POST ${route.path} needs its lane's verify (the session of its Cookie header)`);
  const verify = lane.verify.bind(lane);
  const parseJson = (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    new Promise((parsed, failed) => shell.parseJson(req, res, (error) => (error === undefined || error === null ? parsed() : failed(error))));
  return {
    takesQuery: false,
    answer: async (req, res) => {
      if (shell.refusesCrossSite(req)) return { status: 403, body: { error: CROSS_SITE_MESSAGE } };
      try {
        await parseJson(req, res);
      } catch (error) {
        return shell.failure(error, req);
      }
      // As command-api's `authenticate`, which runs after the parser: the answer is the session's.
      markSessionAnswer(res);
      try {
        const auth = await verify(req.headers.cookie);
        return await route.answer({ req, body: (req as { body?: unknown }).body, auth, clientAddress: clientAddressOf(req) });
      } catch (error) {
        return lane.failureOf(error, req, route.path);
      }
    },
  };
}

/** A public GET. Safe methods pass CSRF and (bodiless, see `withFastLane`) the JSON parser untouched: neither runs here. */
function getRoute(lane: FastLane, route: FastLaneRoute<'GET'>, queryOf: (req: IncomingMessage) => unknown): LaneRoute {
  return {
    takesQuery: true,
    answer: async (req) => {
      try {
        return await route.answer(queryOf(req));
      } catch (error) {
        return lane.failureOf(error, req, route.path);
      }
    },
  };
}

/** `served`, each finished request recorded by the lane's `observe` (from before the route runs to the response's finish). */
function observed(served: LaneRoute, path: string, observe: NonNullable<FastLane['observe']>): LaneRoute {
  return {
    takesQuery: served.takesQuery,
    answer: (req, res) => {
      const started = performance.now();
      res.once('finish', () => observe(path, res.statusCode, (performance.now() - started) / 1000));
      return served.answer(req, res);
    },
  };
}
