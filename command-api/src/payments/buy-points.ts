import { CURRENCY, DomainError, isDomainError, purchaseOptionFor, streams, type CommandContext } from '@pass/events';
import type { Clock } from '../kernel/clock';
import type { CommandHandler } from '../kernel/command-handler';
import { userDecider } from '../members/decider';
import type { UserState } from '../members/state';
import { PaymentProviderError, type PaymentProvider, type ProviderOrder, type VerifiedCapture } from './provider/port';

export interface BuyPointsDeps {
  handler: CommandHandler;
  payments: PaymentProvider;
  clock: Clock;
}

export interface Credited {
  user: UserState;
  points: number;
}

/** Asks the provider; anything but a domain refusal means it could not be asked (nothing credited). */
async function ask<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PaymentProviderError || error instanceof DomainError) throw error;
    throw new PaymentProviderError(error);
  }
}

function ownOrder(order: ProviderOrder | null, userId: string): ProviderOrder {
  // 402 like every other unverifiable payment: the answer does not say whose orders exist.
  if (!order) throw new DomainError('payment_not_verified', 'This payment order does not exist');
  if (order.userId !== userId) throw new DomainError('payment_not_verified', 'This payment belongs to another member');
  return order;
}

/**
 * Credits a capture: only COMPLETED, in USD, for the member the order was created for, and for
 * exactly the price of the option the order was created for. Each capture id is credited once
 * (credit-purchase.ts); a repeated call answers the first credit's result instead of an error, so
 * retries and duplicate calls (the browser's capture, then the spec's buy-points) are harmless.
 */
async function credit(deps: BuyPointsDeps, userId: string, capture: VerifiedCapture, ctx: CommandContext): Promise<Credited> {
  if (capture.status !== 'COMPLETED') throw new DomainError('payment_not_verified', 'This payment has not been completed');
  if (capture.userId !== userId) throw new DomainError('payment_not_verified', 'This payment belongs to another member');
  const option = capture.optionUsd === null ? undefined : purchaseOptionFor(capture.optionUsd);
  if (!option || capture.currency !== CURRENCY || capture.amountUsd !== option.amountUsd) {
    throw new DomainError('payment_not_verified', 'This payment does not match any purchase option');
  }
  const { points } = option;
  try {
    const { state } = await deps.handler.handle(
      userDecider,
      streams.user(userId),
      {
        type: 'CreditPurchase',
        data: { userId, provider: capture.provider, orderId: capture.orderId, captureId: capture.captureId, amountUsd: option.amountUsd, points },
        now: deps.clock(),
      },
      ctx,
    );
    return { user: state, points };
  } catch (error) {
    if (!isDomainError(error, 'already_credited')) throw error;
    const { state } = await deps.handler.load(userDecider, streams.user(userId));
    return { user: state, points: state.creditedCaptures.get(capture.captureId)?.points ?? points };
  }
}

/**
 * POST /api/payments/orders/:orderId/capture: the order must be this member's; it is captured
 * at the provider unless it already was (then its capture is reused), and the capture credited.
 */
export async function captureAndCredit(deps: BuyPointsDeps, userId: string, orderId: string, ctx: CommandContext): Promise<Credited> {
  const order = ownOrder(await ask(() => deps.payments.getOrder(orderId)), userId);
  const capture = order.capture ?? (await ask(() => deps.payments.captureOrder(orderId)));
  return credit(deps, userId, capture, ctx);
}

/**
 * POST /api/buy-points (the spec's helper): credits an order the provider reports captured, by
 * the same rules as the capture route; it never captures itself.
 */
export async function creditCapturedOrder(deps: BuyPointsDeps, userId: string, orderId: string, ctx: CommandContext): Promise<Credited> {
  const order = ownOrder(await ask(() => deps.payments.getOrder(orderId)), userId);
  if (!order.capture) throw new DomainError('payment_not_verified', 'This payment has not been completed');
  return credit(deps, userId, order.capture, ctx);
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

/**
 * The provider refunded `amountUsd` of a credited capture as `refundId` (PayPal sends one
 * PAYMENT.CAPTURE.REFUNDED per refund, partial or not): the purchase's points are taken back in
 * proportion (floored, never below a zero balance); the refund that completes the amount
 * reverses the purchase. Once per refund id.
 */
export async function refundCapturedPurchase(
  deps: Pick<BuyPointsDeps, 'handler' | 'clock'>,
  userId: string,
  refund: { captureId: string; refundId: string; amountUsd: number },
  ctx: CommandContext,
): Promise<{ state: UserState; reversed?: { points: number; amountUsd: number; partial: boolean } }> {
  const { state, events } = await deps.handler.handle(
    userDecider,
    streams.user(userId),
    { type: 'RefundPurchase', data: { userId, ...refund }, now: deps.clock() },
    ctx,
  );
  const event = events.find((candidate) => candidate.type === 'PurchaseReversed');
  if (event?.type !== 'PurchaseReversed') return { state };
  return { state, reversed: { points: event.data.points, amountUsd: event.data.amountUsd, partial: event.data.partial ?? false } };
}
