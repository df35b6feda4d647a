import { AMOUNT_MESSAGES, DomainError, passesAffordable, passesCost, priorityFor, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/**
 * A claim's second step must land within this time of its reservation; the reconciler only
 * releases reservations older than `RECONCILE_AFTER_MS` (reconciler.ts), so a claim is either
 * recorded here or released there, never both.
 */
export const CLAIM_RECORD_DEADLINE_MS = 15_000;

/** The refusal of a claim the member's points do not cover; `field` is what the amount form shows. */
export function pointsShortfall(passes: number, points: number, field: string): DomainError {
  return new DomainError('insufficient_points', `You need ${passesCost(passes)} points for ${passes} passes and have ${points}`, {
    fields: { passes: field },
  });
}

/** Second step of a claim: spends the passes' points on the member's stream, and may raise their priority. */
export function decideRecordPassesClaim(command: CommandOf<'RecordPassesClaim'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const { reservationId, passes, reservedAt } = command.data;
  const at = command.now.toISOString();
  // Recording twice (a retry, or the reconciler racing a slow request) changes nothing.
  if (state.claimedReservations.has(reservationId)) return [];
  if (command.now.getTime() - Date.parse(reservedAt) > CLAIM_RECORD_DEADLINE_MS) {
    throw new DomainError('reservation_expired', 'Your claim took too long, please try again');
  }
  const cost = passesCost(passes);
  if (state.points < cost) throw pointsShortfall(passes, state.points, AMOUNT_MESSAGES.max(passesAffordable(state.points)));
  const events: UserEvent[] = [{ type: 'PassesClaimed', data: { userId: state.userId, reservationId, passes, pointsSpent: cost, claimedAt: at } }];
  const priority = priorityFor(state.passes + passes, state.priority);
  if (priority !== state.priority) events.push({ type: 'PriorityChanged', data: { userId: state.userId, priority, changedAt: at } });
  return events;
}
