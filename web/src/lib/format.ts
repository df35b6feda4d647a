/**
 * Display formats of spec §1/§9: comma thousands separators, funds with 2 decimals, dd/mm/yyyy,
 * 00:SS. The rules behind the figures (masked e-mails, the day counter) are the kernel's.
 */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatNumber(n: number): string {
  return integer.format(Number.isFinite(n) ? n : 0);
}

export function formatFunds(n: number): string {
  return money.format(Number.isFinite(n) ? n : 0);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** dd/mm/yyyy of an ISO time, in UTC so it matches the server's registry filter. */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
}

/** 00:SS as the countdowns show it. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
}
