import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { CommandApi } from '@pass/command-api';
import type { Express } from 'express';
import { COMPRESSION_THRESHOLD, type ShellPipeline } from './app-shell';
import { CROSS_SITE_MESSAGE } from './csrf';

type HotLane = CommandApi['hotLane'];
type HotRoute = HotLane['routes'][number];
type Answer = Awaited<ReturnType<HotRoute['answer']>>;
type EtagFn = (body: Buffer, encoding?: string) => string | undefined;

/**
 * A plain node:http listener in front of the Express app that serves command-api's hot POST
 * routes (chat message, free point, its ticket) without Express's router, request and response
 * prototypes, which under load cost more CPU than the routes themselves. Only an exact
 * `POST <path>` (no query, no trailing slash, that case) takes the lane; everything else goes to
 * Express untouched. The lane runs the shell's own pipeline functions in the shell's order
 * (request id and access line, security headers, CSRF, JSON body, sessions, route, error
 * translation) and writes answers as Express's `res.json` and compression would, with the app's
 * own ETag and trust-proxy functions, so a client cannot tell the lanes apart.
 */
export function withFastLane(app: Express, pipeline: ShellPipeline, lane: HotLane): RequestListener {
  const routes = new Map(lane.routes.map((route) => [route.path, route]));
  const etagOf = app.get('etag fn') as EtagFn | undefined;
  // Express's own `req.ip` getter, run on the bare request: `trust proxy` resolved exactly as there.
  const clientAddressOf = (req: IncomingMessage): string | undefined => Reflect.get(app.request, 'ip', { app, headers: req.headers, socket: req.socket, connection: req.socket }) as string | undefined;

  const send = (req: IncomingMessage, res: ServerResponse, answer: Answer): void => {
    if (res.headersSent) return;
    res.statusCode = answer.status;
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    // As res.json: the JSON text, its type, length and (weak) ETag.
    const chunk = Buffer.from(JSON.stringify(answer.body) ?? '');
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', String(chunk.length));
    const etag = etagOf?.(chunk);
    if (etag) res.setHeader('ETag', etag);
    if (chunk.length >= COMPRESSION_THRESHOLD) {
      // Large enough to compress: the shell's compression decides, exactly as behind Express.
      pipeline.compression(req as never, res as never, () => res.end(chunk));
      return;
    }
    // Below the threshold compression only marks the answer as depending on Accept-Encoding.
    res.setHeader('Vary', 'Accept-Encoding');
    res.end(chunk);
  };

  const parseJson = (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    new Promise((parsed, failed) => pipeline.parseJson(req, res, (error) => (error === undefined || error === null ? parsed() : failed(error))));

  const serve = async (req: IncomingMessage, res: ServerResponse, route: HotRoute): Promise<void> => {
    pipeline.beginRequest(req, res);
    pipeline.writeSecurityHeaders(res);
    if (pipeline.refusesCrossSite(req)) return send(req, res, { status: 403, body: { error: CROSS_SITE_MESSAGE } });
    try {
      await parseJson(req, res);
    } catch (error) {
      return send(req, res, pipeline.failure(error, req));
    }
    let answer: Answer;
    try {
      const auth = await lane.verify(req.headers.cookie);
      answer = await route.answer({ req, body: (req as { body?: unknown }).body, auth, clientAddress: clientAddressOf(req) });
    } catch (error) {
      answer = lane.failureOf(error, req);
    }
    send(req, res, answer);
  };

  return (req, res) => {
    const route = req.method === 'POST' && req.url !== undefined ? routes.get(req.url) : undefined;
    if (!route) return void app(req, res);
    serve(req, res, route).catch((error: unknown) => {
      // Only a fault of the lane itself gets here (every route error is translated above).
      send(req, res, pipeline.failure(error, req));
    });
  };
}
