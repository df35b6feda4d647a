import { assertNever, type PoolEvent } from '@pass/events';

export interface Reservation {
  reservationId: string;
  userId: string;
  passes: number;
  reservedAt: string;
  /** An admin's supply edit came after it: releasing it gives nothing back (see PoolState). */
  counted?: boolean;
}

/**
 * The global supply of passes. `available` is what a new claim can take now (the public
 * "Available Passes"): the admin sets it (PassSupplySet), a reservation takes from it, a release
 * gives back, a confirmation changes nothing more, so passes handed out never exceed what the
 * admin made available (the main-data read model follows the same rule). An admin's edit marks
 * the reservations then pending as counted, and releasing a counted one gives nothing back, so
 * release and edit in either order end at the admin's figure (docs/architecture.md, "Command side").
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
    case 'PassSupplySet': {
      const pending = new Map<string, Reservation>();
      for (const [id, reservation] of state.pending) pending.set(id, { ...reservation, counted: true });
      return { ...state, available: event.data.available, supplySet: true, pending };
    }
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
      return settle(state, event.data.reservationId, event.data.returned ?? event.data.passes);
    default:
      return assertNever(event);
  }
}
