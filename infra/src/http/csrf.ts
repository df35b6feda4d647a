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
  const allowed = options.allowedOrigins ?? [];
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const verdict = checkRequestOrigin(req.headers, allowed);
    if (verdict.ok) return next();
    req.log?.warn({ origin: req.headers.origin, referer: req.headers.referer, reason: verdict.reason }, 'cross-site write refused');
    res.status(403).json({ error: CROSS_SITE_MESSAGE });
  };
}
