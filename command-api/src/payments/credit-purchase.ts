import { DomainError, pointsForUsd, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/** Credits a capture the provider verified: once per capture id, at the price of a point. */
export function decideCreditPurchase(command: CommandOf<'CreditPurchase'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const { provider, orderId, captureId, amountUsd, points } = command.data;
  if (state.creditedCaptures.has(captureId)) throw new DomainError('already_credited', 'This payment has already been credited');
  const bought = pointsForUsd(amountUsd);
  if (points !== bought) throw new DomainError('invalid', `A payment of ${amountUsd} USD buys ${bought} points`);
  return [{ type: 'PointsPurchased', data: { userId: state.userId, provider, orderId, captureId, amountUsd, points, purchasedAt: command.now.toISOString() } }];
}
