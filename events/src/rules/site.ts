/** Site figures (docs/product.md §1 home, §4): funds raised and the day counter. Browser-safe. */

/** Whole cents of a USD amount: money is summed in cents so 0.1 + 0.2 never drifts. */
export const toCents = (usd: number): number => Math.round(usd * 100);
export const fromCents = (cents: number): number => cents / 100;

/** A USD amount rounded to whole cents, so 0.1 + 0.2 never shows as 0.30000000000000004. */
export function roundCents(usd: number): number {
  return fromCents(toCents(usd));
}

export interface FundsFigures {
  views: number;
  cpm: number;
  purchasesUsd: number;
  donations: number;
}

/** docs/product.md §1, as written: views × cpm + sum of all members' purchases + donations. */
export function fundsRaised(figures: FundsFigures): number {
  return roundCents(figures.views * figures.cpm + figures.purchasesUsd + figures.donations);
}

/** The start date's shape, day/month/year; a text of this shape may still name no real day (31/02). */
export const DAY_MONTH_YEAR = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/;

/** Parses the spec's day/month/year start date to a UTC time; null when empty or malformed. */
export function parseDayMonthYear(text: string): number | null {
  const match = DAY_MONTH_YEAR.exec(text);
  if (!match) return null;
  const [day, month, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const check = new Date(time);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  return time;
}

const DAY_MS = 86_400_000;

/** Whole days since startDate (docs/product.md §4), 0 when it is empty, malformed or in the future. */
export function dayCounter(startDate: string, now: number): number {
  const start = parseDayMonthYear(startDate);
  if (start === null) return 0;
  return Math.max(0, Math.floor((now - start) / DAY_MS));
}
