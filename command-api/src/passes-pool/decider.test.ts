import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../kernel/decider-spec';
import { fold } from '../kernel/decider';
import type { PoolEvent } from '@pass/events';
import { poolDecider } from './decider';
import { freePasses } from './state';

const spec = deciderSpec(poolDecider);
const now = new Date('2026-01-01T10:00:00.000Z');
const iso = now.toISOString();
const supply = (available: number): PoolEvent => ({ type: 'PassSupplySet', data: { available, setBy: 'admin-1', setAt: iso } });
const reserved = (reservationId: string, passes: number): PoolEvent => ({
  type: 'PassesReserved',
  data: { reservationId, userId: 'u1', passes, reservedAt: iso },
});
const reserve = (reservationId: string, passes: number) => ({ type: 'ReservePasses', data: { reservationId, userId: 'u1', passes }, now }) as const;

describe('passes pool', () => {
  it('reserves passes out of the supply', () => {
    spec.given([supply(5)]).when(reserve('r1', 3)).then([reserved('r1', 3)]);
  });

  it('holds pending reservations so two claims cannot take the same passes', () => {
    spec.given([supply(5), reserved('r1', 3)]).when(reserve('r2', 3)).thenThrows('passes_unavailable', /Only 2 passes are left/);
  });

  it('initializes the supply on a fresh installation only', () => {
    const initialize = { type: 'InitializePassSupply', data: { available: 1_000_000, setBy: 'bootstrap' }, now } as const;
    spec.given([]).when(initialize).then([{ type: 'PassSupplySet', data: { available: 1_000_000, setBy: 'bootstrap', setAt: iso } }]);
    // A second process starting late must not undo what was set or reserved meanwhile.
    spec.given([supply(5), reserved('r1', 3)]).when(initialize).then([]);
    spec.given([supply(0)]).when(initialize).then([]);
  });

  it('says so when none are left', () => {
    spec.given([supply(0)]).when(reserve('r1', 1)).thenThrows('passes_unavailable', /no passes left/);
  });

  it('takes confirmed passes off the supply and gives released ones back', () => {
    const state = fold(poolDecider, [
      supply(10),
      reserved('r1', 3),
      reserved('r2', 4),
      { type: 'PassReservationConfirmed', data: { reservationId: 'r1', userId: 'u1', passes: 3, confirmedAt: iso } },
      { type: 'PassReservationReleased', data: { reservationId: 'r2', userId: 'u1', passes: 4, reason: 'test', releasedAt: iso } },
    ]);
    expect(state.available).toBe(7);
    expect(freePasses(state)).toBe(7);
    expect(state.pending.size).toBe(0);
  });

  it('confirms a pending reservation with its passes', () => {
    spec.given([supply(5), reserved('r1', 2)]).when({ type: 'ConfirmPassReservation', data: { reservationId: 'r1' }, now }).then([
      { type: 'PassReservationConfirmed', data: { reservationId: 'r1', userId: 'u1', passes: 2, confirmedAt: iso } },
    ]);
  });

  it('treats confirming or releasing a reservation that is no longer pending as done', () => {
    const confirmed: PoolEvent = { type: 'PassReservationConfirmed', data: { reservationId: 'r1', userId: 'u1', passes: 2, confirmedAt: iso } };
    const released: PoolEvent = { type: 'PassReservationReleased', data: { reservationId: 'r1', userId: 'u1', passes: 2, reason: 'x', releasedAt: iso } };
    spec.given([supply(5), reserved('r1', 2), confirmed]).when({ type: 'ConfirmPassReservation', data: { reservationId: 'r1' }, now }).then([]);
    spec.given([supply(5), reserved('r1', 2), released]).when({ type: 'ReleasePassReservation', data: { reservationId: 'r1', reason: 'x' }, now }).then([]);
    spec.given([supply(5), reserved('r1', 2), released]).when({ type: 'ConfirmPassReservation', data: { reservationId: 'r1' }, now }).then([]);
    // A release racing a confirmation gives nothing back: the passes stay handed out.
    spec.given([supply(5), reserved('r1', 2), confirmed]).when({ type: 'ReleasePassReservation', data: { reservationId: 'r1', reason: 'x' }, now }).thenState((pool) => expect(freePasses(pool)).toBe(3));
  });

  it('reserving the same id again is a no-op', () => {
    spec.given([supply(5), reserved('r1', 2)]).when(reserve('r1', 2)).then([]);
  });

  it('lets the admin set what is available; claims in flight keep their reservations', () => {
    spec.given([supply(5)]).when({ type: 'SetPassSupply', data: { available: 100, setBy: 'admin-1' }, now }).then([supply(100)]);
    const state = fold(poolDecider, [supply(5), reserved('r1', 3), supply(0)]);
    expect(freePasses(state)).toBe(0);
    expect(state.pending.has('r1')).toBe(true);
    spec.given([supply(5), reserved('r1', 3), supply(0)]).when(reserve('r2', 1)).thenThrows('passes_unavailable');
  });

  describe('an admin supply edit and a release, in either order, leave the admin figure', () => {
    const setSupply = (available: number) => ({ type: 'SetPassSupply', data: { available, setBy: 'admin-1' }, now }) as const;
    const release = { type: 'ReleasePassReservation', data: { reservationId: 'r1', reason: 'claim failed' }, now } as const;
    const releasedEvent = (returned?: number): PoolEvent => ({
      type: 'PassReservationReleased',
      data: { reservationId: 'r1', userId: 'u1', passes: 3, reason: 'claim failed', releasedAt: iso, ...(returned === undefined ? {} : { returned }) },
    });

    it('edit then release: the release gives back nothing the edit already counted', () => {
      spec.given([supply(10), reserved('r1', 3), supply(4)]).when(release).then([releasedEvent(0)]);
      spec.given([supply(10), reserved('r1', 3), supply(4)]).when(release).thenState((pool) => {
        expect(freePasses(pool)).toBe(4);
        expect(pool.pending.size).toBe(0);
      });
    });

    it('release then edit: the edit sets the figure outright', () => {
      spec.given([supply(10), reserved('r1', 3)]).when(release).then([releasedEvent()]);
      spec.given([supply(10), reserved('r1', 3), releasedEvent()]).when(setSupply(4)).thenState((pool) => expect(freePasses(pool)).toBe(4));
    });

    it('a reservation made after the edit is given back as usual', () => {
      spec.given([supply(10), reserved('r0', 1), supply(4), reserved('r1', 3)]).when(release).then([releasedEvent()]);
      spec.given([supply(10), reserved('r0', 1), supply(4), reserved('r1', 3)]).when(release).thenState((pool) => expect(freePasses(pool)).toBe(4));
    });

    it('the rule survives a snapshot taken between the edit and the release', () => {
      const state = fold(poolDecider, [supply(10), reserved('r1', 3), supply(4)]);
      const restored = poolDecider.snapshot!.decode(JSON.parse(JSON.stringify(poolDecider.snapshot!.encode(state))));
      const events = poolDecider.decide(release, restored);
      expect(events).toEqual([releasedEvent(0)]);
      expect(freePasses(events.reduce(poolDecider.evolve, restored))).toBe(4);
    });
  });
});
