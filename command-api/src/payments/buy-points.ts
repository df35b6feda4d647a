import { CURRENCY, POINTS_PER_USD, purchaseOptionFor, streams, type CommandContext } from '@pass/events';
import type { Clock } from '../kernel/clock';
import type { CommandHandler } from '../kernel/command-handler';
import { DomainError } from '../kernel/domain-error';
import { userDecider, type UserState } from '../users/decider';
import { PaymentProviderError, type PaymentVerifier, type VerifiedCapture } from './port';

export interface BuyPointsDeps {
  handler: CommandHandler;
  payments: PaymentVerifier;
  clock: Clock;
}

/**
 * Credits the points of a captured order (POST /api/buy-points and the Payments capture route).
 * The provider's record decides: the order must be captured (COMPLETED), in USD, for one of the
 * nine prices, created for this member; each capture id is credited once (user decider).
 */
export async function creditCapturedOrder(deps: BuyPointsDeps, userId: string, orderId: string, ctx: CommandContext): Promise<{ user: UserState; points: number }> {
  let capture: VerifiedCapture | null;
  try {
    capture = await deps.payments.findCapturedOrder(orderId);
  } catch (error) {
    throw new PaymentProviderError(error);
  }
  if (!capture || capture.status !== 'COMPLETED') throw new DomainError('payment_not_verified', 'This payment has not been completed');
  if (capture.userId !== userId) throw new DomainError('payment_not_verified', 'This payment belongs to another member');
  if (capture.currency !== CURRENCY || !purchaseOptionFor(capture.amountUsd)) {
    throw new DomainError('payment_not_verified', 'This payment does not match any purchase option');
  }
  const points = Math.round(capture.amountUsd * POINTS_PER_USD);
  const { state } = await deps.handler.handle(
    userDecider,
    streams.user(userId),
    {
      type: 'CreditPurchase',
      data: { userId, provider: capture.provider, orderId: capture.orderId, captureId: capture.captureId, amountUsd: capture.amountUsd, points },
      now: deps.clock(),
    },
    ctx,
  );
  return { user: state, points };
}

/** Takes back a refunded or reversed capture (the provider's webhook, verified by the Payments routes). */
export async function reverseCapturedPurchase(
  deps: Pick<BuyPointsDeps, 'handler' | 'clock'>,
  userId: string,
  captureId: string,
  reason: 'refunded' | 'reversed',
  ctx: CommandContext,
): Promise<UserState> {
  const { state } = await deps.handler.handle(userDecider, streams.user(userId), { type: 'ReversePurchase', data: { userId, captureId, reason }, now: deps.clock() }, ctx);
  return state;
}
