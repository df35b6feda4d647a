/**
 * Free points (docs/product.md §2 /content/check, §9): one point for an ad page watched to the end, at most
 * one every 30 s. Browser-safe. The page's countdown, the server's interval and the ad-view
 * ticket's window all derive from the one interval below.
 */

/** At most one free point per member per this interval. */
export const FREE_POINT_INTERVAL_MS = 30_000;
/** Points one watched countdown earns. */
export const FREE_POINT_POINTS = 1;
/** /content/check counts this many seconds down before it asks for the point. */
export const FREE_POINT_COUNTDOWN_SECONDS = FREE_POINT_INTERVAL_MS / 1000;
/** The page asks for the point when its countdown shows this second. */
export const FREE_POINT_AWARDED_AT_SECOND = 1;

/** A second of slack for timers and the trip, below what the countdown really takes. */
const AD_VIEW_SLACK_MS = 1_000;
/**
 * An ad-view ticket earns its point from this long after it was issued (the countdown watched to
 * the end, less the slack) ...
 */
export const AD_VIEW_MIN_MS = (FREE_POINT_COUNTDOWN_SECONDS - FREE_POINT_AWARDED_AT_SECOND) * 1000 - AD_VIEW_SLACK_MS;
/** ... until this long after (a slow tab), and only once. */
export const AD_VIEW_TTL_MS = 5 * 60_000;

/** Milliseconds until the member may earn again (0 or less: now). */
export function freePointWaitMs(lastAwardedAt: string | null, now: Date): number {
  if (!lastAwardedAt) return 0;
  return Date.parse(lastAwardedAt) + FREE_POINT_INTERVAL_MS - now.getTime();
}

/** Why an ad-view ticket issued at `issuedAt` cannot earn a point `now`, or null when it can. */
export type AdViewProblem =
  | { kind: 'too_early'; waitSeconds: number }
  | { kind: 'expired' }
  | { kind: 'used' }
  | { kind: 'interval'; waitSeconds: number };

export function adViewProblem(issuedAt: Date, now: Date, lastAwardedAt: string | null): AdViewProblem | null {
  const watchedMs = now.getTime() - issuedAt.getTime();
  if (watchedMs < AD_VIEW_MIN_MS) return { kind: 'too_early', waitSeconds: Math.ceil((AD_VIEW_MIN_MS - watchedMs) / 1000) };
  if (watchedMs > AD_VIEW_TTL_MS) return { kind: 'expired' };
  // One ticket, one point: a ticket issued before the last award has been used (or overtaken).
  if (lastAwardedAt && issuedAt.getTime() <= Date.parse(lastAwardedAt)) return { kind: 'used' };
  const waitMs = freePointWaitMs(lastAwardedAt, now);
  if (waitMs > 0) return { kind: 'interval', waitSeconds: Math.ceil(waitMs / 1000) };
  return null;
}
