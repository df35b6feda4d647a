import { describe, expect, it } from 'vitest';
import type { UserEvent } from '@pass/events';
import { userDecider } from '../members/decider';
import { CLAIM_RECORD_DEADLINE_MS } from './record-claim';
import { at, claimed, memberSpec as spec, purchased, registered, t0, userId } from '../test-support/member-events';

describe('user: record a pass claim', () => {
  const record = (passes: number, reservationId = 'r1', now = at(1000)) =>
    ({ type: 'RecordPassesClaim', data: { userId, reservationId, passes, reservedAt: t0.toISOString() }, now }) as const;

  it('spends 20 points per pass and makes a first claim a normal user', () => {
    spec.given([registered, purchased(100)]).when(record(2)).then([
      { type: 'PassesClaimed', data: { userId, reservationId: 'r1', passes: 2, pointsSpent: 40, claimedAt: at(1000).toISOString() } },
      { type: 'PriorityChanged', data: { userId, priority: 'normalUser', changedAt: at(1000).toISOString() } },
    ]);
  });
  it('makes a member holding 10 passes a special user', () => {
    spec.given([registered, purchased(1000), claimed(9)]).when(record(1)).thenState((state) => {
      expect(state.passes).toBe(10);
      expect(state.priority).toBe('specialUser');
      expect(state.points).toBe(1010 - 200);
    });
  });
  it('does not change the priority of a normal user claiming again below 10', () => {
    const events = userDecider.decide(record(1), [registered, purchased(100), claimed(1), { type: 'PriorityChanged', data: { userId, priority: 'normalUser', changedAt: t0.toISOString() } } as UserEvent].reduce(userDecider.evolve, userDecider.initialState()));
    expect(events.map((e) => e.type)).toEqual(['PassesClaimed']);
  });
  it('never lets points go below zero', () => {
    spec.given([registered]).when(record(1)).thenThrows('insufficient_points', /need 20 points/);
  });
  it('records one reservation once', () => {
    spec.given([registered, purchased(100), claimed(1, 'r1')]).when(record(1, 'r1')).then([]);
  });
  it('refuses to record a reservation older than the deadline (the reconciler releases it)', () => {
    spec.given([registered, purchased(100)]).when(record(1, 'r1', at(CLAIM_RECORD_DEADLINE_MS + 1))).thenThrows('reservation_expired');
  });
});
