/** Business constants of spec §9 and the timers of spec §2/§4. Browser-safe: no Node imports. */

export const PRODUCT_NAME = 'Freedom Pass';
/** What the product calls its points, used in the purchase descriptions (spec §3). */
export const POINTS_NAME = 'Freedom Pass';

export const CURRENCY = 'USD';
export const POINTS_PER_USD = 100;
export const POINTS_PER_PASS = 20;
export const POINTS_PER_CHAT_MESSAGE = 1;
export const NEW_USER_POINTS = 10;
/** Members' chat messages are highlighted after their first 10 passes (about text, spec §1). */
export const SPECIAL_USER_PASSES = 10;

export const GOAL_PASSES = 1_000_000;
export const GOAL_DAYS = 365;

export interface PurchaseOption {
  /** Price in whole US dollars. */
  amountUsd: number;
  points: number;
  passes: number;
  description: string;
}

export function purchaseDescription(points: number): string {
  const passes = points / POINTS_PER_PASS;
  const messages = points / POINTS_PER_CHAT_MESSAGE;
  const n = (x: number) => x.toLocaleString('en-US');
  // "exchangable" is spelled as the spec writes it.
  return `${n(points)} ${POINTS_NAME} points, exchangable for ${n(passes)} passes or ${n(messages)} messages in the global chat`;
}

/** The nine purchase cards of spec §9, in order. */
export const PURCHASE_OPTIONS: readonly PurchaseOption[] = [1, 5, 10, 20, 30, 50, 100, 500, 1000].map((amountUsd) => {
  const points = amountUsd * POINTS_PER_USD;
  return { amountUsd, points, passes: points / POINTS_PER_PASS, description: purchaseDescription(points) };
});

export function purchaseOptionFor(amountUsd: number): PurchaseOption | undefined {
  return PURCHASE_OPTIONS.find((o) => o.amountUsd === amountUsd);
}

/** Timers in milliseconds (spec §9) unless the name says seconds. */
export const TIMERS = {
  freePointCountdownSeconds: 30,
  /** The point is awarded when the countdown shows this many seconds. */
  freePointAwardedAtSecond: 1,
  /** Server side: at most one free point per user per this interval. */
  freePointMinIntervalMs: 30_000,
  /** /content layout: at this countdown value without a loaded banner, "Network connection lost". */
  contentBannerDeadlineSecond: 19,
  welcomeToastMs: 2_000,
  joinToastMs: 3_000,
  newMemberPopupMs: 10_000,
  loadingOverlayMaxMs: 60_000,
  adsPopupFirstDelayMs: 6_000,
  adsPopupIntervalMs: 300_000,
  adsPopupCountdownSeconds: 10,
  adBlockMainCheckMs: 7_000,
  adBlockPopupCheckMs: 9_000,
  /** The third banner type is checked when the check-seconds counter equals this. */
  thirdBannerCheckAtSecond: 29,
  redirectAfterLostConnectionMs: 1_000,
  socketReconnectDelayMs: 1_000,
  socketReconnectDelayMaxMs: 5_000,
  socketTimeoutMs: 20_000,
} as const;

export const TOASTS = {
  blankMs: 4_000,
  errorMs: 4_000,
  successMs: 2_000,
  limit: 20,
} as const;

export const LIMITS = {
  imageMaxBytes: 2 * 1024 * 1024,
  chatMessageMaxChars: 500,
  topCountries: 5,
  popupAdSlots: 3,
  adWidth: 300,
  adHeight: 250,
  sessionCookieHours: 24,
} as const;

export const DEFAULT_COUNTRY = 'United States';
export const ANONYMOUS_NICKNAME = 'Anonymous';
