/**
 * Names, the goal, and the timers and limits of docs/product.md §2/§4/§9. Browser-safe: no Node imports.
 * Rules with numbers of their own (points per pass, per message, the free-point interval, ...)
 * live with their capability in `rules/`.
 */

export const PRODUCT_NAME = 'Freedom Pass';
/** What the product calls its points, used in the purchase descriptions (docs/product.md §3). */
export const POINTS_NAME = 'Freedom Pass';

/** The goal the site counts towards (docs/product.md §1). */
export const GOAL_PASSES = 1_000_000;
export const GOAL_DAYS = 365;

/** Timers in milliseconds (docs/product.md §9) unless the name says seconds. */
export const TIMERS = {
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
