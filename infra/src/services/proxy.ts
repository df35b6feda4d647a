/**
 * The one public origin of the distributed mode, for running without Caddy/nginx (development
 * and tests; infra/deploy/Caddyfile is the production equivalent): state changes to command-api,
 * reads, pages and Socket.IO (including WebSocket upgrades) to the query-api instances.
 * Socket.IO's long-polling needs every request of one session on the same instance, so
 * /socket.io/ requests stick to an instance by cookie; everything else is round-robin, and an
 * idempotent request whose instance refuses the connection is tried on the next one.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { requireSettings, type Settings } from '../config/settings';
import { listen, stopAccepting } from '../wiring/http';
import { isEntryPoint, Resources } from '../wiring/lifecycle';
import { runService } from '../wiring/process';
import { proxyRequires } from './requirements';
import { INTERNAL_PATHS, upstreamFor } from './routes';

export const STICKY_COOKIE = 'pass_sio';
/**
 * How long a client's idle connection is kept: Caddy's default idle timeout (5 min), the front this
 * proxy stands in for, rather than Node's 5 s, after which a browser sending a chat message every
 * few seconds would open a new connection (and the proxy accept it) for nearly every one.
 */
export const CLIENT_IDLE_TIMEOUT_MS = 300_000;
// Hop-by-hop headers are about one connection; they must not be forwarded (RFC 9110, section 7.6.1).
const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface ProxyOptions {
  commandApiUrl: string;
  queryApiUrls: string[];
  logger: Logger;
  /** Per-request timeout towards a backend (not for WebSockets). */
  timeoutMs?: number;
}

interface Target {
  url: URL;
  index: number;
}

function stickyIndex(cookieHeader: string | undefined, count: number): number | undefined {
  const match = cookieHeader?.match(new RegExp(`(?:^|;\\s*)${STICKY_COOKIE}=(\\d+)`));
  if (!match) return undefined;
  const index = Number(match[1]);
  return index < count ? index : undefined;
}

/**
 * The headers sent to the backend, built from the request's raw header lines (name, value, ...)
 * rather than `req.headers`: that object is parsed only when asked for, and a command's request
 * never needs it here. Duplicates go on as lines; the backend's HTTP parser merges them exactly as
 * `req.headers` would have. X-Forwarded-For, X-Request-Id and (without a Host) X-Forwarded-Host
 * are merged here, since each is read or set below.
 */
function forwardedHeaders(req: IncomingMessage, upgrade: boolean, backendHost: string): string[] {
  const raw = req.rawHeaders;
  const headers: string[] = [];
  let host: string | undefined;
  let prior: string | undefined;
  let requestId: string | undefined;
  let forwardedHost: string | undefined;
  const joined = (sofar: string | undefined, value: string) => (sofar === undefined ? value : `${sofar}, ${value}`);
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower === 'x-forwarded-proto') continue;
    if (lower === 'x-forwarded-for') prior = joined(prior, value);
    else if (lower === 'x-request-id') requestId = joined(requestId, value);
    else if (lower === 'x-forwarded-host') forwardedHost = joined(forwardedHost, value);
    // The first Host counts, as in `req.headers` (later ones are dropped there).
    else if (lower === 'host') host ??= value;
    else headers.push(name, value);
  }
  // Raw lines get no Host of Node's making: without one (HTTP/1.0), or with an empty one, the backend's, as Node would set it.
  headers.push('host', host || backendHost);
  const client = req.socket.remoteAddress ?? '';
  headers.push('x-forwarded-for', prior ? `${prior}, ${client}` : client);
  headers.push('x-forwarded-proto', 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http');
  if (host) headers.push('x-forwarded-host', host);
  else if (forwardedHost !== undefined) headers.push('x-forwarded-host', forwardedHost);
  // One id per request across the proxy and the backend's logs (the backend keeps a valid one).
  headers.push('x-request-id', requestId || randomUUID());
  if (upgrade) headers.push('connection', 'Upgrade', 'upgrade', req.headers.upgrade ?? 'websocket');
  return headers;
}

/** The backend's answer headers as raw lines, without the hop-by-hop ones (`answer.headers` is never parsed). */
function answerHeaders(answer: IncomingMessage, extraCookie: string | undefined): string[] {
  const raw = answer.rawHeaders;
  const headers: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) headers.push(raw[i]!, raw[i + 1]!);
  if (extraCookie) headers.push('set-cookie', extraCookie);
  return headers;
}

/**
 * Connections to the backends are kept open and reused (a new TCP connection per request costs
 * more than forwarding it). An idle one is closed after 4 s, before the backends' own 5 s
 * keep-alive timeout (Node's default), so the proxy never sends a request on a connection the
 * backend is closing at that moment (a POST there would fail with a 502, not retried).
 */
function backendAgent(): Agent {
  return new Agent({ keepAlive: true, timeout: 4_000, scheduling: 'lifo', maxFreeSockets: 256 });
}

/** The backends a request can go to, how one is chosen, and how requests to them are made. */
interface Backends {
  log: Logger;
  agent: Agent;
  queries: URL[];
  timeoutMs: number;
  /** command-api for its routes; a query-api instance otherwise (sticky by cookie for /socket.io/, else round-robin). */
  pick(req: IncomingMessage, path: string): { target: Target; setSticky: boolean };
}

function backends(options: ProxyOptions): Backends {
  const command = new URL(options.commandApiUrl);
  const queries = options.queryApiUrls.map((u) => new URL(u));
  let next = 0;
  return {
    log: options.logger.child({ component: 'proxy' }),
    agent: backendAgent(),
    queries,
    timeoutMs: options.timeoutMs ?? 30_000,
    pick: (req, path) => {
      if (upstreamFor(req.method ?? 'GET', path) === 'command-api') return { target: { url: command, index: -1 }, setSticky: false };
      const isSocketIo = path.startsWith('/socket.io/');
      const sticky = isSocketIo ? stickyIndex(req.headers.cookie, queries.length) : undefined;
      const index = sticky ?? next++ % queries.length;
      return { target: { url: queries[index]!, index }, setSticky: isSocketIo && sticky === undefined };
    },
  };
}

function fail(res: ServerResponse, path: string, status: number): void {
  if (res.headersSent) return void res.destroy();
  const isApi = path.startsWith('/api');
  res.writeHead(status, { 'content-type': isApi ? 'application/json' : 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(isApi ? JSON.stringify({ error: 'The service is temporarily unavailable, please try again' }) : 'Service unavailable, please try again shortly\n');
}

/** Forwards a plain HTTP request to `target`, retrying an idempotent one on the next query-api instance when refused. */
function forwarder(backend: Backends) {
  const { log, agent, queries, timeoutMs } = backend;
  const forward = (req: IncomingMessage, res: ServerResponse, path: string, target: Target, setSticky: boolean, attempt: number) => {
    const upstream = httpRequest({
      host: target.url.hostname,
      port: target.url.port || 80,
      method: req.method,
      path: req.url,
      agent,
      headers: forwardedHeaders(req, false, target.url.host),
      // A long-polling GET is held open up to Socket.IO's ping interval (25 s): give it room.
      timeout: path.startsWith('/socket.io/') ? Math.max(timeoutMs, 60_000) : timeoutMs,
    });
    upstream.on('response', (answer) => {
      const sticky = setSticky ? `${STICKY_COOKIE}=${target.index}; Path=/socket.io/; HttpOnly; SameSite=Lax` : undefined;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders(answer, sticky));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('timeout', () => upstream.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // Nothing reached the backend: an idempotent request can go to the next query-api instance.
      const retry = error.code === 'ECONNREFUSED' && target.index >= 0 && IDEMPOTENT.has(req.method ?? '') && attempt + 1 < queries.length;
      log.warn({ err: error, target: target.url.origin, path, retry }, 'backend request failed');
      if (retry) {
        const index = (target.index + 1) % queries.length;
        forward(req, res, path, { url: queries[index]!, index }, setSticky || path.startsWith('/socket.io/'), attempt + 1);
        return;
      }
      fail(res, path, error.message.startsWith('no answer') ? 504 : 502);
    });
    // Keep the body flowing only once: a retried request has no body (idempotent methods).
    if (attempt === 0) {
      // A client that goes away mid-body must not crash the proxy (an unhandled 'error').
      req.on('error', () => upstream.destroy());
      req.pipe(upstream);
    }
    else upstream.end();
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
  };
  return forward;
}

/** Tunnels a WebSocket upgrade to the chosen backend, or passes on its refusal. */
function upgrader(backend: Backends) {
  const { log } = backend;
  return (req: IncomingMessage, client: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const { target } = backend.pick(req, path);
    client.on('error', () => client.destroy());
    const upstream = httpRequest({
      host: target.url.hostname,
      port: target.url.port || 80,
      method: req.method,
      path: req.url,
      headers: forwardedHeaders(req, true, target.url.host),
    });
    upstream.on('upgrade', (answer, socket, upstreamHead) => {
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upstreamHead.length > 0) client.write(upstreamHead);
      if (head.length > 0) socket.write(head);
      socket.on('error', () => client.destroy());
      client.on('close', () => socket.destroy());
      socket.on('close', () => client.destroy());
      socket.pipe(client).pipe(socket);
    });
    upstream.on('response', (answer) => {
      // The backend refused the upgrade: pass its answer on and close.
      client.end(`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      answer.resume();
    });
    upstream.on('error', (error) => {
      log.warn({ err: error, target: target.url.origin, path }, 'backend upgrade failed');
      client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    });
    upstream.end();
  };
}

export function createProxy(options: ProxyOptions) {
  const backend = backends(options);
  const forward = forwarder(backend);

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', service: 'proxy' }));
      return;
    }
    if (INTERNAL_PATHS.has(path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    const { target, setSticky } = backend.pick(req, path);
    forward(req, res, path, target, setSticky, 0);
  };

  const server = createServer(onRequest);
  server.keepAliveTimeout = CLIENT_IDLE_TIMEOUT_MS;
  server.on('upgrade', upgrader(backend));
  // Open WebSockets are not tracked by the HTTP server: keep them to close on shutdown.
  const tunnels = new Set<Duplex>();
  server.on('upgrade', (_req: IncomingMessage, client: Duplex) => {
    tunnels.add(client);
    client.once('close', () => tunnels.delete(client));
  });
  return {
    server,
    async close() {
      const drained = stopAccepting(server);
      for (const tunnel of tunnels) tunnel.destroy();
      await drained;
      backend.agent.destroy();
    },
  };
}

export async function startProxyService(settings: Settings, logger: Logger) {
  const resources = new Resources();
  const proxy = createProxy({ commandApiUrl: settings.commandApiUrl!, queryApiUrls: settings.queryApiUrls!, logger });
  const url = await listen(proxy.server, settings.host, settings.port);
  resources.add(() => proxy.close());
  logger.info({ commandApi: settings.commandApiUrl, queryApis: settings.queryApiUrls }, 'routing');
  return { url, close: resources.close };
}

if (isEntryPoint(import.meta.url)) {
  await runService('proxy', startProxyService, { validate: (settings) => requireSettings(settings, 'proxy', proxyRequires) });
}
