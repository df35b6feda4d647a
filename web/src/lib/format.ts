/**
 * Display formats of docs/product.md §1/§9: comma thousands separators, funds with 2 decimals, dd/mm/yyyy,
 * 00:SS. The rules behind the figures (masked e-mails, the day counter) are the kernel's.
 */

// No Intl.NumberFormat: building the first one loads the browser's locale data, a long task at
// start on a phone (docs/benchmarks/history/web.md, "Start-up off the critical path"). These give
// en-US's output, rounding the shortest decimal form of the number half away from zero, as ICU does.

/** The number's shortest round-trip digits, written out without an exponent. */
function plainDigits(abs: number): { int: string; frac: string } {
  const [mantissa = '0', exponent] = String(abs).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const shift = Number(exponent ?? 0);
  const digits = whole + fraction;
  const point = whole.length + shift;
  if (point <= 0) return { int: '0', frac: '0'.repeat(-point) + digits };
  if (point >= digits.length) return { int: digits + '0'.repeat(point - digits.length), frac: '' };
  return { int: digits.slice(0, point), frac: digits.slice(point) };
}

/** Adds one to a string of decimal digits. */
function increment(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i--;
  if (i < 0) return '1' + '0'.repeat(digits.length);
  return digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(digits.length - i - 1);
}

function formatFixed(n: number, fractionDigits: number): string {
  const value = Number.isFinite(n) ? n : 0;
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const { int, frac } = plainDigits(Math.abs(value));
  let kept = (int + frac.padEnd(fractionDigits, '0').slice(0, fractionDigits)).replace(/^0+(?=\d)/, '');
  if ((frac[fractionDigits] ?? '0') >= '5') kept = increment(kept);
  const intPart = kept.slice(0, kept.length - fractionDigits).padStart(1, '0');
  const grouped = intPart.replace(/\B(?=(\d{3})+$)/g, ',');
  return sign + (fractionDigits > 0 ? `${grouped}.${kept.slice(-fractionDigits).padStart(fractionDigits, '0')}` : grouped);
}

export function formatNumber(n: number): string {
  return formatFixed(n, 0);
}

export function formatFunds(n: number): string {
  return formatFixed(n, 2);
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
  const whole = Math.max(0, Math.floor(seconds));
  return `${pad(Math.floor(whole / 60))}:${pad(whole % 60)}`;
}
