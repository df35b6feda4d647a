import { continuousProgress, dayCounter, goalPace, quietDay, type ProgressDay, type ProgressView } from '@pass/events/kernel';

/** One day as a progress chart draws it: the day's figures and the passes the goal's pace needs by its end. */
export interface ProgressRow extends ProgressDay {
  /** Null without a start date. */
  pace: number | null;
}

/** Where the run stands today, for a one-line summary in the reader's language. */
export interface ProgressToday {
  /** The day counter's reading (docs/product.md §1); meaningless without a start date. */
  day: number;
  goal: { passes: number; days: number };
  passesTaken: number;
  /** The passes the goal's pace needs by the end of today; null without a start date. */
  paceToday: number | null;
}

/** The UTC day (YYYY-MM-DD) of a time. */
const utcDate = (now: number) => new Date(now).toISOString().slice(0, 10);

/** The answer's days with the live ones laid over them: a live day replaces its date's entry or comes after. */
function withLiveDays(days: readonly ProgressDay[], live: readonly ProgressDay[]): ProgressDay[] {
  const byDate = new Map(days.map((day) => [day.date, day]));
  for (const day of live) byDate.set(day.date, day);
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/**
 * GET /api/progress's days (with any live days laid over them) as a chart draws them: every day
 * through today (a quiet day repeats the totals before it; with nothing counted yet, today alone
 * at 0), each with the goal's pace for it, and where today stands.
 */
export function progressRows(view: ProgressView, live: readonly ProgressDay[], now: number): { rows: ProgressRow[]; today: ProgressToday } {
  const today = utcDate(now);
  const merged = withLiveDays(view.days, live);
  const days = merged.length > 0 ? continuousProgress(merged, today) : [quietDay(today, null)];
  const rows = days.map((day) => ({ ...day, pace: goalPace(view.goal, view.startDate, day.date) }));
  return {
    rows,
    today: {
      day: dayCounter(view.startDate, now),
      goal: view.goal,
      passesTaken: days[days.length - 1]!.passesTaken,
      paceToday: goalPace(view.goal, view.startDate, today),
    },
  };
}

/**
 * A share of the goal in tenths of a percent, rounded down so it never reads 100% early; `under`
 * when some passes are taken but fewer than a tenth (so it never reads 0% once started).
 */
export function goalShare(part: number, whole: number): { percent: number; under: boolean } {
  const tenths = Math.floor((part * 1000) / whole);
  return part > 0 && tenths === 0 ? { percent: 0.1, under: true } : { percent: tenths / 10, under: false };
}
