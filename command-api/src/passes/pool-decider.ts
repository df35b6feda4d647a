import { assertNever, type DomainEvent, type PoolCommand } from '@pass/events';
import { eventGuard, type Decider } from '../kernel/decider';
import { DomainError } from '@pass/events';

export const POOL_EVENT_TYPES = ['PassSupplySet', 'PassesReserved', 'PassReservationConfirmed', 'PassReservationReleased'] as const;
export type PoolEvent = Extract<DomainEvent, { type: (typeof POOL_EVENT_TYPES)[number] }>;

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

export function decidePool(command: PoolCommand, state: PoolState): PoolEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'SetPassSupply': {
      // Claims in flight keep their reservations; the new figure is what further claims can take.
      const { available, setBy } = command.data;
      return [{ type: 'PassSupplySet', data: { available, setBy, setAt: at } }];
    }
    case 'InitializePassSupply': {
      // Two processes starting together may both ask; only the first sets anything, so a
      // late one can never undo reservations made in between.
      if (state.supplySet) return [];
      const { available, setBy } = command.data;
      return [{ type: 'PassSupplySet', data: { available, setBy, setAt: at } }];
    }
    case 'ReservePasses': {
      const { reservationId, userId, passes } = command.data;
      if (state.pending.has(reservationId)) return [];
      const free = freePasses(state);
      if (passes > free) {
        throw new DomainError(
          'passes_unavailable',
          free === 0 ? 'There are no passes left right now' : `Only ${free} passes are left`,
          { fields: { passes: free === 0 ? 'There are no passes left right now' : `You can get at most ${free} passes` } },
        );
      }
      return [{ type: 'PassesReserved', data: { reservationId, userId, passes, reservedAt: at } }];
    }
    case 'ConfirmPassReservation': {
      const { reservationId } = command.data;
      const reservation = state.pending.get(reservationId);
      if (!reservation) return [];
      return [
        { type: 'PassReservationConfirmed', data: { reservationId, userId: reservation.userId, passes: reservation.passes, confirmedAt: at } },
      ];
    }
    case 'ReleasePassReservation': {
      const { reservationId, reason } = command.data;
      const reservation = state.pending.get(reservationId);
      if (!reservation) return [];
      return [
        {
          type: 'PassReservationReleased',
          data: { reservationId, userId: reservation.userId, passes: reservation.passes, reason, releasedAt: at },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

export const poolDecider: Decider<PoolCommand, PoolState, PoolEvent> = {
  name: 'passes-pool',
  initialState: initialPoolState,
  isEvent: eventGuard(POOL_EVENT_TYPES),
  evolve: evolvePool,
  decide: decidePool,
  // Two events per claim: at a million members the stream is too long to replay on every start.
  snapshot: {
    version: 1,
    encode: (state) => ({ available: state.available, supplySet: state.supplySet, pending: [...state.pending.values()] }),
    decode: (data) => {
      const d = data as { available: number; supplySet: boolean; pending: Reservation[] };
      return { available: d.available, supplySet: d.supplySet, pending: new Map(d.pending.map((r) => [r.reservationId, r])) };
    },
  },
};
