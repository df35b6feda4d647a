import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import compression from 'compression';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { keepWebhookRawBody } from '@pass/command-api';
import { accessLog } from './access-log';
import { originGuard } from './csrf';
import { securityHeaders, type SecurityHeaderOptions } from './security-headers';

export interface AppShellOptions {
  logger: Logger;
  /** Mounted in order before the web app; each owns its own /api paths. */
  routers: RequestHandler[];
  /** Built web app (Vite output). When missing, a minimal page says how to build it. */
  webDistDir?: string;
  /** Extra static mounts, e.g. `/uploads`. */
  staticMounts?: { path: string; dir: string }[];
  jsonLimit?: string;
  /** Express `trust proxy` (which X-Forwarded-For hops to believe); default: loopback only. */
  trustProxy?: string;
  /** False for API-only services (command-api in distributed mode): no web app, not even the hint page. */
  serveWebApp?: boolean;
  /** CSP inputs (payments provider, ad network) and HSTS; default: self only, no HSTS (see `securityOptionsFrom`). */
  security?: SecurityHeaderOptions;
  /** Other origins allowed to send cookie-authenticated writes (ALLOWED_ORIGINS); the site's own always is. */
  allowedOrigins?: readonly string[];
}

/**
 * The Express shell every HTTP process shares: request ids (also the correlation id of the
 * commands a request causes), structured access logs, baseline security headers, JSON body
 * parsing with a size limit, JSON errors for /api, and the single-page app with history
 * fallback.
 */
export function createAppShell(options: AppShellOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? 'loopback');

  // Request ids (x-request-id in and out) and one access line per request.
  app.use(accessLog({ logger: options.logger }));

  // Pages, scripts and API answers leave compressed (the built app's JavaScript is about a third
  // the size gzipped). Socket.IO compresses its own transports.
  app.use(compression({ filter: (req, res) => !req.url.startsWith('/socket.io/') && compression.filter(req, res) }));
  app.use(securityHeaders(options.security ?? { paymentsProvider: 'simulated', hsts: false }));
  // CSRF: cross-site writes are refused before the body is even parsed.
  app.use('/api', originGuard({ allowedOrigins: options.allowedOrigins ?? [] }));

  // A webhook's bytes are kept as received: its signature covers them, not re-serialised JSON.
  app.use('/api', express.json({ limit: options.jsonLimit ?? '100kb', verify: keepWebhookRawBody }));
  for (const router of options.routers) app.use(router);
  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });

  for (const mount of options.staticMounts ?? []) {
    app.use(mount.path, express.static(mount.dir, { index: false, fallthrough: false, maxAge: '1h' }));
  }

  const dist = options.webDistDir;
  const indexHtml = dist ? resolve(dist, 'index.html') : undefined;
  if (options.serveWebApp === false) {
    // API-only: unknown paths fall through to Express's 404.
  } else if (dist && indexHtml && existsSync(indexHtml)) {
    app.use(express.static(dist, { index: false, maxAge: '1h' }));
    // Client-side routes: every other GET that accepts HTML gets the app.
    app.get(/^(?!\/(api|socket\.io|uploads)\/).*/, (req, res, next) => {
      if (!req.accepts('html')) return next();
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(indexHtml);
    });
  } else {
    app.get('/', (_req, res) => {
      res
        .type('html')
        .send('<!doctype html><title>Pass community</title><h1>Pass community</h1><p>The web app is not built: run <code>npm run build -w @pass/web</code>.</p>');
    });
  }

  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const status = typeof err?.status === 'number' && err.status >= 400 && err.status < 600 ? err.status : 500;
    if (status >= 500) req.log?.error({ err }, 'request failed');
    if (res.headersSent) return;
    const message =
      err?.type === 'entity.too.large'
        ? 'The request is too large'
        : err?.type === 'entity.parse.failed'
          ? 'The request body is not valid JSON'
          : status >= 500
            ? 'Something went wrong, please try again'
            : String(err?.message ?? 'Bad request');
    res.status(status).json({ error: message });
  };
  app.use(onError);
  return app;
}
