import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    /** The request id: the caller's valid `x-request-id`, or a new one (also the commands' correlation id). */
    id?: string;
    /** A child logger carrying `reqId`, made on first use (most requests never log anything but their access line). */
    log?: Logger;
    /**
     * The commands the request caused (command-api's `commandContext` reports them as they are
     * decided): an array while the access line waits for them, removed once it is written.
     */
    commands?: unknown[];
  }
}

const REQUEST_ID = /^[\w.:-]{1,100}$/;
/** Paths logged at debug only, whatever their status (probes and scrapes). */
const QUIET_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

interface AccessLogOptions {
  logger: Logger;
}

/**
 * Request ids and one access line per request, with no headers serialised and no child logger
 * built per request (pino-http's way, costly under load). The line keeps what an operator
 * searches by: `reqId`, method, path with the query's parameter names (never their values:
 * search terms, e-mails, tokens), status, `responseTime` (ms) and the commands the request caused
 * (`commands`: name, stream, outcome, ms), so a command costs one line; 5xx and aborted requests
 * at error, 4xx at warn, probes at debug. No client address: the privacy text promises none is
 * collected (docs/architecture.md, "Personal data"). `req.log` is made only when needed.
 */
export function accessLog(options: AccessLogOptions) {
  const begin = requestLogger(options);
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    begin(req, res);
    next();
  };
}

/**
 * The access log as a plain function, for request listeners outside Express (the command-api
 * fast lane): gives `req` its id and lazy `req.log`, answers `x-request-id`, and logs the line
 * when the response closes.
 */
export function requestLogger(options: AccessLogOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { logger } = options;
  return (req, res) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: () => (child ??= logger.child({ reqId: id })) });
    req.id = id;
    req.commands = [];
    res.setHeader('x-request-id', id);
    res.once('close', () => {
      const commands = req.commands!;
      // Commands decided from now on (after the answer) log lines of their own.
      req.commands = undefined;
      // Express keeps the full path in originalUrl when a router strips its mount path.
      const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
      const path = url.split('?', 1)[0]!;
      const finished = res.writableFinished;
      const status = res.statusCode;
      // Probes and scrapes (a 503 from /readyz during start-up included) would drown everything else.
      const level = QUIET_PATHS.has(path) ? 'debug' : !finished || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          reqId: id,
          req: { method: req.method, url: withoutQueryValues(url) },
          res: { statusCode: status },
          responseTime: Math.round((performance.now() - started) * 100) / 100,
          ...(commands.length > 0 && { commands }),
        },
        finished ? 'request completed' : 'request aborted',
      );
    });
  };
}

const REDACTED = '<redacted>';
/** A parameter name as the web app and the API write them; anything else is as private as a value. */
const PARAMETER_NAME = /^[\w.[\]-]{1,64}$/;

/** `/api/registry?q=<redacted>&page=<redacted>`: which parameters a request had, none of what they held. */
export function withoutQueryValues(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      const shown = PARAMETER_NAME.test(name) || name === '' ? name : REDACTED;
      return eq < 0 ? shown : `${shown}=${eq === pair.length - 1 ? '' : REDACTED}`;
    });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}
