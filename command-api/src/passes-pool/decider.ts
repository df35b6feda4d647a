import { isEventOf, type PoolCommand, type PoolEvent } from '@pass/events';
import type { Decider } from '../kernel/decider';
import { decidePool } from './decide';
import { evolvePool, initialPoolState, type PoolState, type Reservation } from './state';

export const poolDecider: Decider<PoolCommand, PoolState, PoolEvent> = {
  name: 'passes-pool',
  initialState: initialPoolState,
  isEvent: isEventOf('passes-pool'),
  evolve: evolvePool,
  decide: decidePool,
  // Two events per claim: at a million members the stream is too long to replay on every start.
  snapshot: {
    version: 1,
    encode: (state) => ({ available: state.available, supplySet: state.supplySet, pending: [...state.pending.values()] }),
    decode: (data) => {
      const snapshot = data as { available: number; supplySet: boolean; pending: Reservation[] };
      return { available: snapshot.available, supplySet: snapshot.supplySet, pending: new Map(snapshot.pending.map((reservation) => [reservation.reservationId, reservation])) };
    },
  },
};
