import { randomUUID } from 'node:crypto';
import { AMOUNT_MESSAGES, DomainError, isDomainError, passesAffordable, passesCost, streams, type CommandContext } from '@pass/events';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock';
import type { CommandHandler } from '../kernel/command-handler';
import { userDecider } from '../members/decider';
import { requireRegistered, type UserState } from '../members/state';
import { poolDecider } from '../passes-pool/decider';
import { pointsShortfall } from './record-claim';

export interface ClaimDeps {
  handler: CommandHandler;
  logger: Logger;
  clock: Clock;
}

/**
 * ClaimPasses across two aggregates (docs/architecture.md, "Command side"):
 * 1. reserve on `passes-pool` (optimistic concurrency: two claims never take the same passes);
 * 2. record PassesClaimed on the member's stream (spends the points; refused if they lack them);
 * 3. confirm the reservation on the pool.
 * A refusal at step 2 releases the reservation at once. A crash or an unreachable store after
 * step 1 or 2 leaves a pending reservation, which the reconciler confirms (step 2 happened) or
 * releases (it did not) — see reconciler.ts.
 */
export async function claimPasses(deps: ClaimDeps, userId: string, passes: number, ctx: CommandContext): Promise<UserState> {
  const { handler, clock } = deps;
  if (!Number.isInteger(passes) || passes < 1) throw new DomainError('invalid', AMOUNT_MESSAGES.min, { fields: { passes: AMOUNT_MESSAGES.min } });

  // Cheap early refusal, so a member without the points never holds passes others could take.
  const { state: user } = await handler.load(userDecider, streams.user(userId));
  requireRegistered(user);
  if (user.points < passesCost(passes)) {
    const max = passesAffordable(user.points);
    throw pointsShortfall(passes, user.points, max === 0 ? AMOUNT_MESSAGES.notEnoughPoints : AMOUNT_MESSAGES.max(max));
  }

  const reservationId = randomUUID();
  const reserved = await handler.handle(poolDecider, streams.passesPool, { type: 'ReservePasses', data: { reservationId, userId, passes }, now: clock() }, ctx);
  const event = reserved.events.find((candidate) => candidate.type === 'PassesReserved');
  const reservedAt = event?.type === 'PassesReserved' ? event.data.reservedAt : clock().toISOString();

  let recorded: UserState;
  try {
    const result = await handler.handle(
      userDecider,
      streams.user(userId),
      { type: 'RecordPassesClaim', data: { userId, reservationId, passes, reservedAt }, now: clock() },
      ctx,
    );
    recorded = result.state;
  } catch (error) {
    if (isDomainError(error)) await release(deps, reservationId, error.code, ctx);
    // Anything else (store down, crash) is left pending for the reconciler, which knows better.
    throw error;
  }

  try {
    const confirmed = await handler.handle(poolDecider, streams.passesPool, { type: 'ConfirmPassReservation', data: { reservationId }, now: clock() }, ctx);
    if (confirmed.events.length === 0) deps.logger.warn({ reservationId }, 'pass reservation was already settled when the claim confirmed it');
  } catch (error) {
    // The member has the passes; the reconciler confirms the reservation later.
    deps.logger.warn({ err: error, reservationId }, 'pass reservation left for the reconciler to confirm');
  }
  return recorded;
}

async function release(deps: ClaimDeps, reservationId: string, reason: string, ctx: CommandContext): Promise<void> {
  try {
    await deps.handler.handle(poolDecider, streams.passesPool, { type: 'ReleasePassReservation', data: { reservationId, reason }, now: deps.clock() }, ctx);
  } catch (error) {
    deps.logger.warn({ err: error, reservationId }, 'pass reservation left for the reconciler to release');
  }
}
