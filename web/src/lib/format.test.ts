import { describe, expect, it } from 'vitest';
import { dayCounter, maskEmail, parseDayMonthYear } from '@pass/events/kernel';
import { formatDate, formatFunds, formatNumber, formatSeconds } from './format';

// The masked e-mail and the day counter are the kernel's rules; these cases pin what the web shows.

describe('format', () => {
  it('groups thousands with commas', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(Number.NaN)).toBe('0');
  });

  it('shows funds with 2 decimals and comma grouping', () => {
    expect(formatFunds(1234.5)).toBe('1,234.50');
    expect(formatFunds(0)).toBe('0.00');
    expect(formatFunds(1000000.126)).toBe('1,000,000.13');
  });

  it("gives en-US's output for any number, rounding half away from zero on the shortest decimal form", () => {
    // What the browser's Intl.NumberFormat prints; the formatter avoids building one at start.
    const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const edges = [-0, -0.001, 2.5, -2.5, 1.005, 0.125, 999.995, 0.995, 99_999.5, 1e21, 1.2345678901234566e25, 5e-7, 123e-20, Number.MAX_VALUE, Number.MIN_VALUE];
    let seed = 7;
    const random = () => ((seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647);
    const values = [...edges];
    for (let i = 0; i < 20_000; i++) {
      const v = (random() - 0.3) * 10 ** Math.floor(random() * 40 - 12);
      values.push(v, Math.round(v * 1000) / 1000, Math.round(v * 100) / 100 + 0.005, Math.round(v) + 0.5);
    }
    const wrong = values.filter((v) => formatNumber(v) !== integer.format(v) || formatFunds(v) !== money.format(v));
    expect(wrong).toEqual([]);
    expect(formatFunds(1.005)).toBe('1.01');
    expect(formatNumber(-2.5)).toBe('-3');
  });

  it('masks e-mails as first 3 characters, stars, domain', () => {
    expect(maskEmail('johnsmith@mail.com')).toBe('joh******@mail.com');
    expect(maskEmail('ab@x.io')).toBe('ab***@x.io');
  });

  it('formats dates as dd/mm/yyyy', () => {
    expect(formatDate('2026-03-04T10:00:00.000Z')).toBe('04/03/2026');
    expect(formatDate('nope')).toBe('');
  });

  it('parses day/month/year and rejects impossible dates', () => {
    expect(parseDayMonthYear('1/2/2026')).toBe(Date.UTC(2026, 1, 1));
    expect(parseDayMonthYear('31/02/2026')).toBeNull();
    expect(parseDayMonthYear('')).toBeNull();
  });

  it('counts whole days since the start date, 0 when empty', () => {
    const now = Date.UTC(2026, 0, 11, 23, 59);
    expect(dayCounter('01/01/2026', now)).toBe(10);
    expect(dayCounter('', now)).toBe(0);
    expect(dayCounter('12/01/2026', now)).toBe(0);
  });

  it('shows countdowns as 00:SS', () => {
    expect(formatSeconds(30)).toBe('00:30');
    expect(formatSeconds(9)).toBe('00:09');
    expect(formatSeconds(-1)).toBe('00:00');
  });
});
