import { dayCounter, parseDayMonthYear, type ReplayRequest } from '@pass/events/kernel';
import { TIME_MACHINE_TEXTS as T } from './texts';

/** What the picker holds when the admin asks for a replay. */
export type MomentChoice =
  /** A `datetime-local` value (yyyy-mm-ddThh:mm), in the admin's own time zone. */
  | { kind: 'date'; local: string }
  /** "Day N": the kernel's day counter reading N (whole days since the start date). */
  | { kind: 'day'; day: number }
  | { kind: 'position'; position: string };

/** The first moment of the given whole day after `start` (UTC, as the start date is). */
function dayOffset(start: number, days: number): number {
  const date = new Date(start);
  date.setUTCDate(date.getUTCDate() + days);
  return date.getTime();
}

/**
 * Day N as a moment: its last millisecond, so the replay holds the whole day; today's day is
 * replayed up to `now`. dayCounter reads N at the moment given.
 */
function dayMoment(day: number, startDate: string, now: number): { at: number } | { error: string } {
  if (!Number.isInteger(day) || day < 0) return { error: T.badDay };
  const start = parseDayMonthYear(startDate);
  if (start === null) return { error: T.noStartDate };
  if (dayOffset(start, day) > now) return { error: T.dayNotYet(day, dayCounter(startDate, now)) };
  return { at: Math.min(now, dayOffset(start, day + 1) - 1) };
}

/** The body of POST /api/admin/replays for the admin's choice, or why there is none. */
export function replayRequestOf(choice: MomentChoice, startDate: string, now: number): { request: ReplayRequest } | { error: string } {
  switch (choice.kind) {
    case 'date': {
      if (!choice.local.trim()) return { error: T.noDate };
      const time = new Date(choice.local).getTime();
      if (Number.isNaN(time)) return { error: T.badDate };
      return { request: { at: new Date(time).toISOString() } };
    }
    case 'day': {
      const moment = dayMoment(choice.day, startDate, now);
      return 'error' in moment ? moment : { request: { at: new Date(moment.at).toISOString() } };
    }
    case 'position': {
      const position = choice.position.trim();
      return position ? { request: { position } } : { error: T.noPosition };
    }
    default: {
      const unknownChoice: never = choice;
      return unknownChoice;
    }
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

/** dd/mm/aaaa hh:mm in the admin's time zone, as the picker takes it; '' for no moment. */
export function formatMoment(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
