import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import compression from 'compression';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { keepWebhookRawBody } from '@pass/command-api';
import { AD_NETWORK_META, appPagePathOf, isAppPagePath, SOCIAL_LINK_META, type SocialLink } from '@pass/events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestLogger } from './access-log';
import { CROSS_SITE_MESSAGE, crossSiteRefusal } from './csrf';
import { isApiPath, securityHeaderWriter, type AnswerKind, type SecurityHeaderOptions } from './security-headers';

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
  /** The about page's social links (SOCIAL_*_URL), written into every page; none: no links shown. */
  socialLinks?: readonly SocialLink[];
  /** CSP inputs (payments provider, ad network) and HSTS; default: self only, no HSTS (see `securityOptionsFrom`). */
  security?: SecurityHeaderOptions;
  /** Other origins allowed to send cookie-authenticated writes (ALLOWED_ORIGINS); the site's own always is. */
  allowedOrigins?: readonly string[];
}

/** Responses smaller than this leave uncompressed (compression's default, named for the fast lane). */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * What the shell does to every /api request, as plain functions: the Express shell mounts them
 * as middleware and the fast lane (a request listener outside Express, ./fast-lane.ts) calls the
 * same ones, so both answer alike.
 */
export interface FastLaneShell {
  /** Request id (x-request-id in and out) and the access line when the response closes. */
  beginRequest(req: IncomingMessage, res: ServerResponse): void;
  compression: RequestHandler;
  writeSecurityHeaders(res: ServerResponse, kind: AnswerKind): void;
  /** True (and logged) for a cross-site write, to answer 403 `{ error: CROSS_SITE_MESSAGE }`. */
  refusesCrossSite(req: IncomingMessage): boolean;
  /** express.json with the shell's limit: sets `req.body`, or passes the parser's error on. */
  parseJson(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void;
  /** The shell's answer to an error no router handled (the JSON parser's included); logs 5xx. */
  failure(error: unknown, req: IncomingMessage): { status: number; body: { error: string } };
}

export function createFastLaneShell(options: AppShellOptions): FastLaneShell {
  const beginRequest = requestLogger({ logger: options.logger });
  const writeSecurityHeaders = securityHeaderWriter(options.security ?? { paymentsProvider: 'simulated', hsts: false });
  const refusesCrossSite = crossSiteRefusal({ allowedOrigins: options.allowedOrigins ?? [] });
  // A webhook's bytes are kept as received: its signature covers them, not re-serialised JSON.
  const json = express.json({ limit: options.jsonLimit ?? '100kb', verify: keepWebhookRawBody });
  return {
    beginRequest,
    // Pages, scripts and API answers leave compressed (the built app's JavaScript is about a third
    // the size gzipped). Socket.IO compresses its own transports.
    compression: compression({
      threshold: COMPRESSION_THRESHOLD,
      filter: (req, res) => !req.url.startsWith('/socket.io/') && compression.filter(req, res),
    }),
    writeSecurityHeaders,
    refusesCrossSite,
    parseJson: json as FastLaneShell['parseJson'],
    failure: shellFailure,
  };
}

function shellFailure(error: unknown, req: IncomingMessage): { status: number; body: { error: string } } {
  const thrown = error as { status?: unknown; type?: unknown; message?: unknown } | null | undefined;
  const status = typeof thrown?.status === 'number' && thrown.status >= 400 && thrown.status < 600 ? thrown.status : 500;
  if (status >= 500) req.log?.error({ err: error }, 'request failed');
  const message =
    thrown?.type === 'entity.too.large'
      ? 'The request is too large'
      : thrown?.type === 'entity.parse.failed'
        ? 'The request body is not valid JSON'
        : status >= 500
          ? 'Something went wrong, please try again'
          : String(thrown?.message ?? 'Bad request');
  return { status, body: { error: message } };
}

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** What a deployment writes into its pages at run time (events/src/page-settings.ts). */
export interface PageSettings {
  adNetwork?: { key: string; host: string } | undefined;
  socialLinks?: readonly SocialLink[] | undefined;
}

/**
 * The built index.html with the deployment's run-time settings in meta tags the web app reads
 * (AD_NETWORK_META, SOCIAL_LINK_META): the ad network and the social links are chosen where the
 * image runs, not where it was built. Read on every page request (a small file), so a rebuilt
 * web app is served at once.
 */
export async function appPage(indexHtml: string, settings: PageSettings = {}): Promise<string> {
  const html = await readFile(indexHtml, 'utf8');
  return withRunTimeSettings(html, settings);
}

function withRunTimeSettings(html: string, settings: PageSettings): string {
  const metas: string[] = [];
  const { adNetwork, socialLinks = [] } = settings;
  if (adNetwork) metas.push(`<meta name="${AD_NETWORK_META}" content="${attribute(adNetwork.key)}" data-host="${attribute(adNetwork.host)}" />`);
  for (const link of socialLinks) metas.push(`<meta name="${SOCIAL_LINK_META}" content="${attribute(link.url)}" data-network="${link.network}" />`);
  if (metas.length === 0) return html;
  return html.replace('</head>', `${metas.map((meta) => `  ${meta}\n`).join('')}  </head>`);
}

/**
 * The HTML for an app page's path: its own build-time render (`pages<path>.html`, written by
 * web/scripts/prerender.ts for the public shells) when the build has one, so the page paints
 * before its script runs, else index.html (the app renders from an empty root or from `/`'s
 * markup, which it hydrates only on `/`). Only the kernel's page paths are looked up, so a
 * request path never names another file.
 */
export async function pageFor(dist: string, path: string, settings: PageSettings = {}): Promise<string> {
  const page = appPagePathOf(path);
  if (page !== '/' && isAppPagePath(page)) {
    const own = await readFile(resolve(dist, `pages${page}.html`), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (own !== undefined) return withRunTimeSettings(own, settings);
  }
  return appPage(resolve(dist, 'index.html'), settings);
}

/**
 * The Express shell every HTTP process shares: request ids (also the correlation id of the
 * commands a request causes), structured access logs, baseline security headers, JSON body
 * parsing with a size limit, JSON errors for /api, and the single-page app with history
 * fallback. `shell`: pass the one a fast lane in front of this app shares.
 */
export function createAppShell(options: AppShellOptions, shell: FastLaneShell = createFastLaneShell(options)): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? 'loopback');

  // Request ids (x-request-id in and out) and one access line per request.
  app.use((req, res, next) => {
    shell.beginRequest(req, res);
    next();
  });
  app.use(shell.compression);
  app.use((req, res, next) => {
    shell.writeSecurityHeaders(res, isApiPath(req.path) ? 'api' : 'page');
    next();
  });
  // CSRF: cross-site writes are refused before the body is even parsed.
  app.use('/api', (req, res, next) => {
    if (!shell.refusesCrossSite(req)) return next();
    res.status(403).json({ error: CROSS_SITE_MESSAGE });
  });
  app.use('/api', shell.parseJson as RequestHandler);
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
    // Client-side routes: every other GET that accepts HTML gets the app, 200 for one of its pages
    // (the kernel's APP_PAGE_PATHS, which the web router is built from), else 404 with the same
    // app, which then shows its not-found screen. A 404 is sent whole: no validators, no ranges.
    // The page carries this deployment's run-time settings (appPage), so it is written, not sent as the file.
    app.get(/^(?!\/(api|socket\.io|uploads)\/).*/, (req, res, next) => {
      if (!req.accepts('html')) return next();
      res.setHeader('Cache-Control', 'no-cache');
      pageFor(dist, req.path, { adNetwork: options.security?.adNetwork, socialLinks: options.socialLinks }).then((page) => {
        if (isAppPagePath(req.path)) res.type('html').send(page);
        else res.status(404).type('html').end(page);
      }, next);
    });
  } else {
    app.get('/', (_req, res) => {
      res
        .type('html')
        .send('<!doctype html><title>Pass community</title><h1>Pass community</h1><p>The web app is not built: run <code>npm run build -w @pass/web</code>.</p>');
    });
  }

  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const failure = shell.failure(err, req);
    if (res.headersSent) return;
    res.status(failure.status).json(failure.body);
  };
  app.use(onError);
  return app;
}
