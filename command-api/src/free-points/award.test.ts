import { describe, expect, it } from 'vitest';
import { AD_VIEW_MIN_MS, AD_VIEW_TTL_MS, type UserEvent } from '@pass/events';
import { at, memberSpec as spec, registered, userId } from '../test-support/member-events';

describe('user: free point', () => {
  // The ad view (its ticket) started `watchedMs` before `now`.
  const award = (nowMs: number, watchedMs = 29_000) =>
    ({ type: 'AwardFreePoint', data: { userId, adViewStartedAt: at(nowMs - watchedMs) }, now: at(nowMs) }) as const;
  it('awards one point for an ad watched to the end of the countdown', () => {
    spec.given([registered]).when(award(40_000)).then([
      { type: 'FreePointAwarded', data: { userId, points: 1, awardedAt: at(40_000).toISOString() } },
    ]);
  });
  it('accepts the point from 28 s after the countdown started (a second of slack before its 29 s)', () => {
    spec.given([registered]).when(award(40_000, AD_VIEW_MIN_MS)).thenState((state) => expect(state.points).toBe(11));
  });
  it('refuses a point asked before the countdown ran, saying how long is left', () => {
    const error = spec.given([registered]).when(award(40_000, 5_000)).thenThrows('too_soon', /Watch the countdown to the end: your point is ready in 23 seconds/);
    expect(error.details.retryAfterSeconds).toBe(23);
  });
  it('refuses a ticket from the future (never watched)', () => {
    spec.given([registered]).when(award(40_000, -60_000)).thenThrows('too_soon');
  });
  it('refuses a countdown older than a few minutes', () => {
    spec.given([registered]).when(award(400_000, AD_VIEW_TTL_MS + 1)).thenThrows('invalid', /expired/);
  });
  const first: UserEvent = { type: 'FreePointAwarded', data: { userId, points: 1, awardedAt: at(0).toISOString() } };
  it('refuses a second point within 30 seconds, saying how long to wait', () => {
    const error = spec.given([registered, first]).when(award(29_500, 29_000)).thenThrows('too_soon', /1 seconds/);
    expect(error.details.retryAfterSeconds).toBe(1);
  });
  it('refuses a ticket issued before the last point: one countdown, one point', () => {
    // Issued 10 s before the first award, shown again 60 s later.
    spec.given([registered, first]).when(award(60_000, 70_000)).thenThrows('conflict', /already earned its point/);
  });
  it('awards again for a new countdown started after the last point', () => {
    spec.given([registered, first]).when(award(60_000, 29_000)).thenState((state) => expect(state.points).toBe(12));
  });
  it('refuses an unknown member', () => {
    spec.given([]).when(award(40_000)).thenThrows('not_found');
  });
});
