import { DomainError, fromCents, toCents, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';
import { refundedPoints } from './refunded-share';

function creditedCapture(state: UserState, captureId: string): { points: number; amountUsd: number } {
  requireRegistered(state);
  const credited = state.creditedCaptures.get(captureId);
  if (!credited) throw new DomainError('not_found', 'No purchase with this capture was credited');
  return credited;
}

/** A chargeback, or a refund of the whole capture: takes back what partial refunds have not. */
export function decideReversePurchase(command: CommandOf<'ReversePurchase'>, state: UserState): UserEvent[] {
  const { captureId, reason } = command.data;
  const credited = creditedCapture(state, captureId);
  // Webhooks are delivered more than once; the second delivery changes nothing.
  if (state.reversedCaptures.has(captureId)) return [];
  const refunded = toCents(state.refundedUsd.get(captureId) ?? 0);
  return [
    {
      type: 'PurchaseReversed',
      data: {
        userId: state.userId,
        captureId,
        reason,
        amountUsd: fromCents(toCents(credited.amountUsd) - refunded),
        // Points already spent on passes or messages stay spent: the balance never goes below 0.
        points: Math.min(credited.points - refundedPoints(credited, refunded), state.points),
        reversedAt: command.now.toISOString(),
      },
    },
  ];
}

/** One refund, partial or the rest: its share of the points, once per refund id. */
export function decideRefundPurchase(command: CommandOf<'RefundPurchase'>, state: UserState): UserEvent[] {
  const { captureId, refundId, amountUsd } = command.data;
  const credited = creditedCapture(state, captureId);
  // A redelivered refund, or one after the purchase was reversed in full: nothing more to take.
  if (state.refundIds.has(refundId) || state.reversedCaptures.has(captureId)) return [];
  const paid = toCents(credited.amountUsd);
  const before = toCents(state.refundedUsd.get(captureId) ?? 0);
  const after = Math.min(paid, before + toCents(amountUsd));
  // Proportional to the dollars refunded, counted on the running total so rounding never adds
  // up; floored, so a refund never takes more than its share. Spent points stay spent.
  const due = refundedPoints(credited, after) - refundedPoints(credited, before);
  return [
    {
      type: 'PurchaseReversed',
      data: {
        userId: state.userId,
        captureId,
        reason: 'refunded',
        amountUsd: fromCents(after - before),
        points: Math.min(due, state.points),
        reversedAt: command.now.toISOString(),
        partial: after < paid,
        refundId,
        refundedUsd: fromCents(after),
      },
    },
  ];
}
