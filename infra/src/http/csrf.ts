import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/**
 * CSRF defence for cookie-authenticated writes (`crossSiteRefusal`) and the Socket.IO handshake
 * (`socketSecurity`). A browser names the page behind a request in `Origin`, or at least
 * `Referer`; it is allowed when that page is this site (the request's Host, or X-Forwarded-Host
 * from the proxy: a cross-site page can set neither) or a configured origin. A request naming no
 * page is no browser acting for another site (curl, PayPal's webhook, the gateway) and passes:
 * cookies are all CSRF abuses, and such a client holds its own.
 */
export type OriginVerdict = { ok: true } | { ok: false; reason: string };

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();

function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** `allowedOrigins`: full origins such as `https://pass.example.com` (scheme and host compared). */
export function checkRequestOrigin(headers: IncomingHttpHeaders, allowedOrigins: readonly string[] = []): OriginVerdict {
  const origin = first(headers.origin);
  const referer = first(headers.referer);
  const claimed = origin ?? referer;
  if (claimed === undefined || claimed === '') return { ok: true };
  // "null": sandboxed frames, data: URLs, privacy-sensitive redirects: never this site's page.
  if (claimed === 'null') return { ok: false, reason: 'opaque origin' };
  const claimedHost = hostOf(claimed);
  if (!claimedHost) return { ok: false, reason: 'unreadable origin' };
  const own = [first(headers.host), first(headers['x-forwarded-host'])].filter((host): host is string => Boolean(host)).map((host) => host.toLowerCase());
  if (own.includes(claimedHost)) return { ok: true };
  let claimedOrigin: string;
  try {
    claimedOrigin = new URL(claimed).origin;
  } catch {
    return { ok: false, reason: 'unreadable origin' };
  }
  if (allowedOrigins.some((allowed) => safeOrigin(allowed) === claimedOrigin)) return { ok: true };
  return { ok: false, reason: `cross-site origin ${claimedOrigin}` };
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export const CROSS_SITE_MESSAGE = 'This request did not come from this site. Please reload the page and try again.';

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
    // The Referer's origin only: its path and query can hold a search or a token.
    const referer = first(req.headers.referer);
    req.log?.warn({ origin: req.headers.origin, referer: referer === undefined ? undefined : (safeOrigin(referer) ?? 'unreadable'), reason: verdict.reason }, 'cross-site write refused');
    return true;
  };
}
