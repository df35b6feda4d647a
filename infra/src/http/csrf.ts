import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { checkRequestOrigin, CROSS_SITE_MESSAGE } from '@pass/query-api/http/origin';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence for cookie-authenticated writes: every non-GET /api request whose Origin (or,
 * without it, Referer) names another site is answered 403 `{ error }` before any router runs.
 * SameSite=Lax cookies already keep most cross-site POSTs anonymous; this also covers
 * same-site-but-other-origin pages and browsers without SameSite. Mount it on `/api`.
 */
export function originGuard(options: { allowedOrigins?: readonly string[] } = {}): RequestHandler {
  const refused = crossSiteRefusal(options);
  return (req, res, next) => {
    if (!refused(req)) return next();
    res.status(403).json({ error: CROSS_SITE_MESSAGE });
  };
}

/**
 * The guard's decision as a plain function (shared with the command-api fast lane): true when
 * `req` is a cross-site write to refuse with 403 `{ error: CROSS_SITE_MESSAGE }`; it logs why.
 */
export function crossSiteRefusal(options: { allowedOrigins?: readonly string[] } = {}): (req: IncomingMessage) => boolean {
  const allowed = options.allowedOrigins ?? [];
  return (req) => {
    if (SAFE_METHODS.has(req.method ?? '')) return false;
    const verdict = checkRequestOrigin(req.headers, allowed);
    if (verdict.ok) return false;
    req.log?.warn({ origin: req.headers.origin, referer: req.headers.referer, reason: verdict.reason }, 'cross-site write refused');
    return true;
  };
}

export { CROSS_SITE_MESSAGE };
