import type { ProgressDay } from '../api';
import { parseDayMonthYear } from './site';

/** Progress toward the goal, day by day (docs/product.md, "Progress"). Browser-safe. */

const DAY_MS = 86_400_000;

/**
 * The UTC day (YYYY-MM-DD) of an event's time (an ISO-8601 string): the day the progress read
 * model counts the event under. Event times are written in UTC (`…Z`), whose first ten
 * characters are the day; any other form is read as a date first.
 */
export function utcDayOf(iso: string): string {
  if (iso.length > 10 && iso.charCodeAt(10) === 84 /* T */ && iso.endsWith('Z')) return iso.slice(0, 10);
  return new Date(iso).toISOString().slice(0, 10);
}

/** The UTC day after `date` (YYYY-MM-DD). */
export function nextUtcDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + DAY_MS).toISOString().slice(0, 10);
}

/** A day on which nothing was counted: the totals of the day before, no counts of its own. */
export function quietDay(date: string, before: ProgressDay | null): ProgressDay {
  return {
    date,
    passesTaken: before?.passesTaken ?? 0,
    members: before?.members ?? 0,
    fundsRaised: before?.fundsRaised ?? 0,
    freePoints: 0,
    pointsBought: 0,
    chatMessages: 0,
  };
}

/**
 * The stored days (oldest first, only days on which something was counted) as a continuous
 * series: every day from the first to the last, or to `through` when that is later, each quiet
 * day filled by `quietDay`. Linear in the days listed; the stored ones are returned as they are.
 */
export function continuousProgress(days: readonly ProgressDay[], through?: string): ProgressDay[] {
  const out: ProgressDay[] = [];
  let previous: ProgressDay | null = null;
  for (const day of days) {
    if (previous) for (let date = nextUtcDay(previous.date); date < day.date; date = nextUtcDay(date)) out.push(quietDay(date, previous));
    out.push(day);
    previous = day;
  }
  if (previous && through !== undefined) for (let date = nextUtcDay(previous.date); date <= through; date = nextUtcDay(date)) out.push(quietDay(date, previous));
  return out;
}

/**
 * The passes the goal's pace needs by the end of `date` (YYYY-MM-DD): the goal spread evenly over
 * its days from the start date (day/month/year, as main data gives it), so day i of the run (0 on
 * the start date) needs passes × (i + 1) / days, rounded up to a whole pass, and the whole goal
 * from its last day on; 0 before the start date. Null without a start date (empty or malformed).
 */
export function goalPace(goal: { passes: number; days: number }, startDate: string, date: string): number | null {
  const start = parseDayMonthYear(startDate);
  if (start === null) return null;
  const index = Math.floor((Date.parse(`${date}T00:00:00.000Z`) - start) / DAY_MS);
  if (index < 0) return 0;
  return Math.ceil((goal.passes * Math.min(index + 1, goal.days)) / goal.days);
}
