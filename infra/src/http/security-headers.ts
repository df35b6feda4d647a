import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings';
import { checkRequestOrigin, type OriginVerdict } from './csrf';

/**
 * Security headers of every response (HTML, API, static files): a Content-Security-Policy that
 * lets the page load code only from its own origin, the payment provider's checkout (PayPal's
 * JS SDK, when PAYMENTS_PROVIDER=paypal) and the configured ad network (AD_NETWORK_KEY); HSTS
 * when cookies are Secure (the site is served over HTTPS only). API answers (/api: JSON, the CSV
 * download) get a policy that allows nothing (API_CONTENT_SECURITY_POLICY): a browser applies a
 * policy only to a document it renders, and an API answer opened as one must run nothing.
 */
export interface SecurityHeaderOptions {
  paymentsProvider: 'simulated' | 'paypal';
  /** Set when AD_NETWORK_KEY is: the web app loads `https://<host>/<key>/invoke.js` in its ad frames. */
  adNetwork?: { key: string; host: string } | undefined;
  /** Strict-Transport-Security (only meaningful over HTTPS: on when COOKIE_SECURE). */
  hsts: boolean;
}

/** PayPal's hosts for its JS SDK, buttons and card fields (developer.paypal.com/sdk/js/best-practices). */
const PAYPAL_HOSTS = ['https://*.paypal.com', 'https://*.paypalobjects.com'] as const;

export function securityOptionsFrom(settings: Pick<Settings, 'payments' | 'adNetworkKey' | 'adNetworkHost' | 'cookieSecure'>): SecurityHeaderOptions {
  return {
    paymentsProvider: settings.payments.provider,
    adNetwork: settings.adNetworkKey ? { key: settings.adNetworkKey, host: settings.adNetworkHost } : undefined,
    hsts: settings.cookieSecure,
  };
}

/**
 * The one inline script of an ad frame (AdBanner's `networkDocument`): `atOptions=<json>;`. A
 * srcdoc frame inherits the page's policy, so the script is allowed by its hash instead of
 * 'unsafe-inline'. Keep in step with AdBanner.tsx (300×250, format iframe).
 */
export function adOptionsScriptHash(key: string): string {
  const options = JSON.stringify({ key, format: 'iframe', height: 250, width: 300, params: {} });
  return `'sha256-${createHash('sha256').update(`atOptions=${options};`).digest('base64')}'`;
}

/** The Content-Security-Policy header value for these settings. */
export function contentSecurityPolicy(options: SecurityHeaderOptions): string {
  const paypal = options.paymentsProvider === 'paypal' ? [...PAYPAL_HOSTS] : [];
  // The network's script writes its own (cross-origin) iframe and images; subdomains serve the creatives.
  const ads = options.adNetwork ? adNetworkSources(options.adNetwork.host) : [];
  const adScript = options.adNetwork ? [adOptionsScriptHash(options.adNetwork.key)] : [];
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...paypal, ...ads, ...adScript],
    // React sets style attributes, react-hot-toast injects a <style>, the house banners and
    // PayPal's buttons carry inline styles: styles cannot run code, so inline is allowed here only.
    'style-src': ["'self'", "'unsafe-inline'", ...paypal],
    'img-src': ["'self'", 'data:', 'blob:', ...paypal, ...ads],
    'font-src': ["'self'", 'data:'],
    // 'self' also covers the Socket.IO WebSocket (ws:/wss: on this host).
    'connect-src': ["'self'", ...paypal, ...ads],
    // House banners are same-origin iframes; srcdoc ad frames are about:srcdoc (inherit 'self').
    'frame-src': ["'self'", ...paypal, ...ads],
    'child-src': ["'self'", ...paypal, ...ads],
    'media-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'", ...paypal],
    'frame-ancestors': ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

function adNetworkSources(host: string): string[] {
  const parts = host.split('.');
  // www.network.com → https://www.network.com https://*.network.com
  const apex = parts.length > 2 ? parts.slice(1).join('.') : host;
  return [...new Set([`https://${host}`, `https://*.${apex}`])];
}

/**
 * The policy of API answers: nothing may load, run or frame them (OWASP's advice for APIs). Also a
 * tenth of the page's policy, on the answers sent most often.
 */
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Which policy an answer gets: a page (HTML, scripts, images) or an API answer. */
export type AnswerKind = 'page' | 'api';

/** True for the paths whose answers are the API's (the /api mount). */
export const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');

/** One HSTS year; subdomains included (the site owns its host). */
const HSTS_VALUE = 'max-age=31536000; includeSubDomains';

/** The headers as a plain function (shared with the fast lanes); names and values computed once. */
export function securityHeaderWriter(options: SecurityHeaderOptions): (res: ServerResponse, kind: AnswerKind) => void {
  const headers: [string, string][] = [
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'strict-origin-when-cross-origin'],
    ['X-Frame-Options', 'SAMEORIGIN'],
    ['Cross-Origin-Opener-Policy', 'same-origin-allow-popups'],
    ['Permissions-Policy', 'camera=(), microphone=(), geolocation=()'],
  ];
  if (options.hsts) headers.push(['Strict-Transport-Security', HSTS_VALUE]);
  const policies: Record<AnswerKind, string> = { page: contentSecurityPolicy(options), api: API_CONTENT_SECURITY_POLICY };
  return (res, kind) => {
    res.setHeader('Content-Security-Policy', policies[kind]);
    for (const [name, value] of headers) res.setHeader(name, value);
  };
}

type SecuritySettings = Pick<Settings, 'payments' | 'adNetworkKey' | 'adNetworkHost' | 'cookieSecure' | 'allowedOrigins' | 'trustProxy'>;

/** For `createAppShell({ ...shellSecurity(settings), … })`: the CSP inputs, HSTS and the CSRF allow-list. */
export function shellSecurity(settings: SecuritySettings): { security: SecurityHeaderOptions; allowedOrigins: readonly string[] } {
  return { security: securityOptionsFrom(settings), allowedOrigins: settings.allowedOrigins };
}

/**
 * For `attachSocketServer(server, { ...socketSecurity(settings), … })`: the handshake's CSRF check
 * (the shell's own, with its allow-list) and whose X-Forwarded-For to believe.
 */
export function socketSecurity(settings: SecuritySettings): { checkOrigin: (headers: IncomingHttpHeaders) => OriginVerdict; trustProxy: string } {
  const allowedOrigins = settings.allowedOrigins;
  return { checkOrigin: (headers) => checkRequestOrigin(headers, allowedOrigins), trustProxy: settings.trustProxy };
}
