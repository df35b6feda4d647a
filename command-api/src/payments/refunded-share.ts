/**
 * Refunds count in cents, so a running total of partial refunds never drifts (0.1 + 0.2), and
 * the points a refund takes back are floored on that running total: refunds in thirds of a
 * 100-point purchase take 33, 33 and 34, never 100 + 1.
 */
export const toCents = (usd: number): number => Math.round(usd * 100);
export const fromCents = (cents: number): number => cents / 100;

/** The points `refundedCents` of a credited purchase stand for (floored). */
export function refundedPoints(credited: { points: number; amountUsd: number }, refundedCents: number): number {
  return Math.floor((refundedCents * credited.points) / toCents(credited.amountUsd));
}
