import { AMOUNT_MESSAGES, DomainError, assertNever, type CommandOf, type PoolCommand, type PoolEvent } from '@pass/events';
import { freePasses, type PoolState } from './state';

const NONE_LEFT = 'There are no passes left right now';

/**
 * The admin's figure: what is available after the claims in flight, which keep their reservations
 * (a later release of one gives nothing back, see PoolState); further claims take from it.
 */
export function decideSetPassSupply(command: CommandOf<'SetPassSupply'>): PoolEvent[] {
  const { available, setBy } = command.data;
  return [{ type: 'PassSupplySet', data: { available, setBy, setAt: command.now.toISOString() } }];
}

/**
 * First start: two processes starting together may both ask; only the first sets anything, so
 * a late one can never undo reservations made in between.
 */
export function decideInitializePassSupply(command: CommandOf<'InitializePassSupply'>, state: PoolState): PoolEvent[] {
  if (state.supplySet) return [];
  const { available, setBy } = command.data;
  return [{ type: 'PassSupplySet', data: { available, setBy, setAt: command.now.toISOString() } }];
}

/** First step of a claim: holds the passes, so two claims never take the same ones. */
export function decideReservePasses(command: CommandOf<'ReservePasses'>, state: PoolState): PoolEvent[] {
  const { reservationId, userId, passes } = command.data;
  if (state.pending.has(reservationId)) return [];
  const free = freePasses(state);
  if (passes > free) {
    throw new DomainError('passes_unavailable', free === 0 ? NONE_LEFT : `Only ${free} passes are left`, {
      fields: { passes: free === 0 ? NONE_LEFT : AMOUNT_MESSAGES.max(free) },
    });
  }
  return [{ type: 'PassesReserved', data: { reservationId, userId, passes, reservedAt: command.now.toISOString() } }];
}

/** The claim was recorded on the member's stream; a reservation no longer pending was settled already. */
export function decideConfirmPassReservation(command: CommandOf<'ConfirmPassReservation'>, state: PoolState): PoolEvent[] {
  const reservation = state.pending.get(command.data.reservationId);
  if (!reservation) return [];
  const { reservationId, userId, passes } = reservation;
  return [{ type: 'PassReservationConfirmed', data: { reservationId, userId, passes, confirmedAt: command.now.toISOString() } }];
}

/**
 * The claim failed or was abandoned: its passes go back to the supply, unless an admin's supply
 * edit came after the reservation (`counted`): that figure already stands for what is free, so
 * nothing is given back (`returned: 0`) and available never exceeds it (rule: PoolState).
 */
export function decideReleasePassReservation(command: CommandOf<'ReleasePassReservation'>, state: PoolState): PoolEvent[] {
  const reservation = state.pending.get(command.data.reservationId);
  if (!reservation) return [];
  const { reservationId, userId, passes } = reservation;
  const data = { reservationId, userId, passes, reason: command.data.reason, releasedAt: command.now.toISOString() };
  return [{ type: 'PassReservationReleased', data: reservation.counted ? { ...data, returned: 0 } : data }];
}

export function decidePool(command: PoolCommand, state: PoolState): PoolEvent[] {
  switch (command.type) {
    case 'SetPassSupply':
      return decideSetPassSupply(command);
    case 'InitializePassSupply':
      return decideInitializePassSupply(command, state);
    case 'ReservePasses':
      return decideReservePasses(command, state);
    case 'ConfirmPassReservation':
      return decideConfirmPassReservation(command, state);
    case 'ReleasePassReservation':
      return decideReleasePassReservation(command, state);
    default:
      return assertNever(command);
  }
}
