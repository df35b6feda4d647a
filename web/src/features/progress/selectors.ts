import { continuousProgress, dayCounter, goalPace, quietDay, type ProgressDay, type ProgressView } from '@pass/events/kernel';
import type { RootState } from '../../lib/store-types';
import { summaryText } from './texts';

/** One day as the page shows it: the day's figures and the passes the goal's pace needs by its end. */
export interface ProgressRow extends ProgressDay {
  /** Null without a start date. */
  pace: number | null;
}

/** What the page shows: the days oldest first, through today, and the sentence above them. */
export interface ProgressSeries {
  rows: ProgressRow[];
  summary: string;
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
 * The series the page draws and lists: GET /api/progress's days with the live days laid over
 * them, every day through today (a quiet day repeats the totals before it; with nothing counted
 * yet, today alone at 0), each with the goal's pace for it.
 */
export function progressSeries(view: ProgressView, live: readonly ProgressDay[], now: number): ProgressSeries {
  const today = utcDate(now);
  const merged = withLiveDays(view.days, live);
  const days = merged.length > 0 ? continuousProgress(merged, today) : [quietDay(today, null)];
  const rows = days.map((day) => ({ ...day, pace: goalPace(view.goal, view.startDate, day.date) }));
  const latest = days[days.length - 1]!;
  const summary = summaryText({
    day: dayCounter(view.startDate, now),
    goal: view.goal,
    passesTaken: latest.passesTaken,
    paceToday: goalPace(view.goal, view.startDate, today),
  });
  return { rows, summary };
}

/** The first request failed: nothing to show yet. */
export const selectProgressFailed = (state: RootState) => state.progress.failed && state.progress.view === null;
