import { assertNever, type PoolEvent } from '@pass/events';

export interface Reservation {
  reservationId: string;
  userId: string;
  passes: number;
  reservedAt: string;
}

/**
 * The global supply of passes. `available` is what a new claim can take now (the public
 * "Available Passes"): the admin sets it (PassSupplySet), a reservation takes from it, a
 * release gives back, a confirmation changes nothing more. Passes handed out therefore never
 * exceed what the admin made available. The projector's main-data read model follows the same
 * rule.
 */
export interface PoolState {
  available: number;
  /**
   * Reservations neither confirmed nor released. Settled ones are forgotten (the state stays as
   * small as the claims in flight), so confirming or releasing one that is no longer pending is a
   * no-op: it was settled already, by the request or by the reconciler.
   */
  pending: ReadonlyMap<string, Reservation>;
  /** A supply was set at least once (first-start initialization then does nothing). */
  supplySet: boolean;
}

export const initialPoolState = (): PoolState => ({ available: 0, pending: new Map(), supplySet: false });

/** Passes a new claim can reserve now. */
export const freePasses = (state: PoolState) => Math.max(0, state.available);

function settle(state: PoolState, reservationId: string, returnedPasses: number): PoolState {
  const pending = new Map(state.pending);
  pending.delete(reservationId);
  return { ...state, available: state.available + returnedPasses, pending };
}

export function evolvePool(state: PoolState, event: PoolEvent): PoolState {
  switch (event.type) {
    case 'PassSupplySet':
      return { ...state, available: event.data.available, supplySet: true };
    case 'PassesReserved': {
      const { reservationId, userId, passes, reservedAt } = event.data;
      return {
        ...state,
        available: state.available - passes,
        pending: new Map(state.pending).set(reservationId, { reservationId, userId, passes, reservedAt }),
      };
    }
    case 'PassReservationConfirmed':
      return settle(state, event.data.reservationId, 0);
    case 'PassReservationReleased':
      return settle(state, event.data.reservationId, event.data.passes);
    default:
      return assertNever(event);
  }
}
