import type { IncomingMessage } from 'node:http';
import { checkRequestOrigin, CROSS_SITE_MESSAGE } from '@pass/query-api/http/origin';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence for cookie-authenticated writes: true when `req` is a non-GET request whose Origin
 * (or, without it, Referer) names another site, to be answered 403 `{ error: CROSS_SITE_MESSAGE }`
 * before any router runs; it logs why. SameSite=Lax cookies already keep most cross-site POSTs
 * anonymous; this also covers same-site-but-other-origin pages and browsers without SameSite.
 * The app shell and the fast lane both ask it.
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
