/** Display formats of spec §1/§9: comma thousands separators, funds with 2 decimals, dd/mm/yyyy. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatNumber(n: number): string {
  return integer.format(Number.isFinite(n) ? n : 0);
}

export function formatFunds(n: number): string {
  return money.format(Number.isFinite(n) ? n : 0);
}

/** First 3 characters, stars for the rest of the local part, then the domain (spec §2 registry). */
export function maskEmail(email: string): string {
  const at = email.indexOf('@');
  if (at < 0) return email.slice(0, 3) + '*'.repeat(Math.max(0, email.length - 3));
  const local = email.slice(0, at);
  const shown = local.slice(0, 3);
  return `${shown}${'*'.repeat(Math.max(3, local.length - shown.length))}${email.slice(at)}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** dd/mm/yyyy of an ISO time, in UTC so it matches the server's registry filter. */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
}

/** Parses the spec's day/month/year start date; null when empty or malformed. */
export function parseDayMonthYear(text: string): number | null {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(text);
  if (!m) return null;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(year, month - 1, day);
  const check = new Date(t);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  return t;
}

const DAY_MS = 86_400_000;

/** Whole days since startDate (spec §4), 0 when it is empty, malformed or in the future. */
export function dayCounter(startDate: string, now: number): number {
  const start = parseDayMonthYear(startDate);
  if (start === null) return 0;
  return Math.max(0, Math.floor((now - start) / DAY_MS));
}

/** 00:SS as the countdowns show it. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
}
