import { describe, expect, it } from 'vitest';
import {
  CURRENCY,
  FREE_POINT_AWARDED_AT_SECOND,
  FREE_POINT_COUNTDOWN_SECONDS,
  FREE_POINT_INTERVAL_MS,
  GOAL_DAYS,
  GOAL_PASSES,
  LIMITS,
  NEW_USER_POINTS,
  POINTS_NAME,
  POINTS_PER_CHAT_MESSAGE,
  POINTS_PER_PASS,
  POINTS_PER_USD,
  PURCHASE_OPTIONS,
  TIMERS,
  TOASTS,
  purchaseDescription,
  purchaseOptionFor,
} from './kernel';

// docs/product.md §9's purchase table, copied as the spec prints it (numbers with comma separators).
const SPEC_TABLE = `
| 1 | 100 | 5 |
| 5 | 500 | 25 |
| 10 | 1,000 | 50 |
| 20 | 2,000 | 100 |
| 30 | 3,000 | 150 |
| 50 | 5,000 | 250 |
| 100 | 10,000 | 500 |
| 500 | 50,000 | 2,500 |
| 1,000 | 100,000 | 5,000 |
`;
const specRows = SPEC_TABLE.trim()
  .split('\n')
  .map((line) => line.split('|').slice(1, 4).map((cell) => cell.trim()));
const num = (text: string) => Number(text.replaceAll(',', ''));

describe('business constants (docs/product.md §9)', () => {
  it('prices points and passes as the spec says', () => {
    expect(CURRENCY).toBe('USD');
    expect(POINTS_PER_USD).toBe(100);
    expect(POINTS_PER_PASS).toBe(20);
    expect(POINTS_PER_CHAT_MESSAGE).toBe(1);
    expect(NEW_USER_POINTS).toBe(10);
    expect(GOAL_PASSES).toBe(1_000_000);
    expect(GOAL_DAYS).toBe(365);
  });

  it('offers exactly the nine purchase options of the table, in order', () => {
    expect(PURCHASE_OPTIONS).toHaveLength(9);
    expect(PURCHASE_OPTIONS.map((o) => [o.amountUsd, o.points, o.passes])).toEqual(
      specRows.map(([usd, points, passes]) => [num(usd!), num(points!), num(passes!)]),
    );
  });

  it.each(specRows)('describes the $%s option as "%s points, exchangable for %s passes or … messages"', (usd, points, passes) => {
    const option = purchaseOptionFor(num(usd!));
    expect(option?.description).toBe(
      `${points} ${POINTS_NAME} points, exchangable for ${passes} passes or ${points} messages in the global chat`,
    );
  });

  it('writes thousands with commas (en-US grouping, not the machine locale)', () => {
    expect(purchaseDescription(100_000)).toBe(
      `100,000 ${POINTS_NAME} points, exchangable for 5,000 passes or 100,000 messages in the global chat`,
    );
    expect(purchaseDescription(100)).toBe(`100 ${POINTS_NAME} points, exchangable for 5 passes or 100 messages in the global chat`);
  });

  it('finds an option only for a listed price', () => {
    expect(purchaseOptionFor(20)).toMatchObject({ amountUsd: 20, points: 2_000, passes: 100 });
    expect(purchaseOptionFor(2)).toBeUndefined();
    expect(purchaseOptionFor(0)).toBeUndefined();
  });

  it('keeps the limits of docs/product.md §9', () => {
    expect(LIMITS).toMatchObject({
      imageMaxBytes: 2 * 1024 * 1024,
      chatMessageMaxChars: 500,
      topCountries: 5,
      popupAdSlots: 3,
      adWidth: 300,
      adHeight: 250,
      sessionCookieHours: 24,
    });
  });

  it('keeps the timers of docs/product.md §4 and §9', () => {
    expect({ FREE_POINT_COUNTDOWN_SECONDS, FREE_POINT_AWARDED_AT_SECOND, FREE_POINT_INTERVAL_MS }).toEqual({
      FREE_POINT_COUNTDOWN_SECONDS: 30,
      FREE_POINT_AWARDED_AT_SECOND: 1,
      FREE_POINT_INTERVAL_MS: 30_000,
    });
    expect(TIMERS).toMatchObject({
      welcomeToastMs: 2_000,
      joinToastMs: 3_000,
      newMemberPopupMs: 10_000,
      loadingOverlayMaxMs: 60_000,
      adsPopupCountdownSeconds: 10,
      adsPopupFirstDelayMs: 6_000,
      adsPopupIntervalMs: 300_000,
      adBlockMainCheckMs: 7_000,
      adBlockPopupCheckMs: 9_000,
      thirdBannerCheckAtSecond: 29,
      contentBannerDeadlineSecond: 19,
      redirectAfterLostConnectionMs: 1_000,
      socketReconnectDelayMs: 1_000,
      socketReconnectDelayMaxMs: 5_000,
      socketTimeoutMs: 20_000,
    });
    expect(TOASTS).toEqual({ blankMs: 4_000, errorMs: 4_000, successMs: 2_000, limit: 20 });
  });
});
