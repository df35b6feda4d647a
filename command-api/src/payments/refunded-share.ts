import { toCents } from '@pass/events';

/**
 * Refunds count in cents (the kernel's `toCents`), so a running total of partial refunds never
 * drifts (0.1 + 0.2), and the points a refund takes back are floored on that running total:
 * refunds in thirds of a 100-point purchase take 33, 33 and 34, never 100 + 1.
 */

/** The points `refundedCents` of a credited purchase stand for (floored). */
export function refundedPoints(credited: { points: number; amountUsd: number }, refundedCents: number): number {
  return Math.floor((refundedCents * credited.points) / toCents(credited.amountUsd));
}
