import { describe, expect, it } from 'vitest';
import type { ProgressDay, ProgressView } from '@pass/events/kernel';
import { progressSeries } from './selectors';
import { progressActions, progressReducer, type ProgressState } from './slice';

const day = (date: string, passesTaken: number, counts: Partial<ProgressDay> = {}): ProgressDay => ({
  date, passesTaken, members: 1, fundsRaised: 2, freePoints: 3, pointsBought: 0, chatMessages: 1, ...counts,
});

/** Counted on the 1st and the 3rd of January; the run started on the 1st. */
const body: ProgressView = {
  goal: { passes: 1_000_000, days: 365 },
  startDate: '01/01/2026',
  days: [day('2026-01-01', 10), day('2026-01-02', 10, { freePoints: 0, chatMessages: 0 }), day('2026-01-03', 40)],
};
const at = (date: string) => Date.parse(`${date}T15:00:00.000Z`);

/** The slice after the page asked, the answer came, and these live days arrived. */
function afterLive(...live: ProgressDay[]): ProgressState {
  let state = progressReducer(undefined, progressActions.progressRequested());
  state = progressReducer(state, progressActions.progressReceived(body));
  for (const d of live) state = progressReducer(state, progressActions.progressDayReceived(d));
  return state;
}

describe('the progress series the page shows', () => {
  it('runs from the first counted day through today, quiet days repeating the totals, each with its pace', () => {
    const { rows } = progressSeries(body, [], at('2026-01-05'));
    expect(rows.map((r) => [r.date, r.passesTaken, r.freePoints, r.pace])).toEqual([
      ['2026-01-01', 10, 3, 2740],
      ['2026-01-02', 10, 0, 5480],
      ['2026-01-03', 40, 3, 8220],
      ['2026-01-04', 40, 0, 10959],
      ['2026-01-05', 40, 0, 13699],
    ]);
  });

  it("a live day replaces today's entry, and a new day's comes after the last", () => {
    const state = afterLive(day('2026-01-03', 55, { chatMessages: 9 }));
    const today = progressSeries(body, state.live, at('2026-01-03')).rows;
    expect(today).toHaveLength(3);
    expect(today[2]).toMatchObject({ date: '2026-01-03', passesTaken: 55, chatMessages: 9 });

    const next = afterLive(day('2026-01-03', 55), day('2026-01-04', 60), day('2026-01-04', 61));
    expect(next.live.map((d) => d.passesTaken)).toEqual([55, 61]);
    const rows = progressSeries(body, next.live, at('2026-01-04')).rows;
    expect(rows.map((r) => [r.date, r.passesTaken])).toEqual([['2026-01-01', 10], ['2026-01-02', 10], ['2026-01-03', 55], ['2026-01-04', 61]]);
  });

  it('lays only the days pushed since the last request over its answer', () => {
    let state = afterLive(day('2026-01-03', 55));
    state = progressReducer(state, progressActions.progressRequested());
    state = progressReducer(state, progressActions.progressReceived(body));
    expect(progressSeries(body, state.live, at('2026-01-03')).rows[2]!.passesTaken).toBe(40);
  });

  it('sums it up in one sentence: the day, the passes, the share of the goal, what the pace needs today', () => {
    const state = afterLive(day('2026-01-05', 1234));
    expect(progressSeries(body, state.live, at('2026-01-05')).summary).toBe(
      'Day 4 of 365: 1,234 passes taken, 0.1% of the goal of 1,000,000. The pace needs 13,699 by the end of today.',
    );
  });

  it('with nothing counted yet shows today at 0, and without a start date no pace', () => {
    const empty: ProgressView = { ...body, startDate: '', days: [] };
    const { rows, summary } = progressSeries(empty, [], at('2026-02-01'));
    expect(rows).toEqual([{ date: '2026-02-01', passesTaken: 0, members: 0, fundsRaised: 0, freePoints: 0, pointsBought: 0, chatMessages: 0, pace: null }]);
    expect(summary).toBe('0 passes taken, 0% of the goal of 1,000,000. The count of 365 days starts once the start date is set.');
    expect(progressSeries(empty, [day('2026-02-01', 1)], at('2026-02-01')).summary).toMatch(/^1 pass taken, under 0\.1% of the goal/);
  });
});
