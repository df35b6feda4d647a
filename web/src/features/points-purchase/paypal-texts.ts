/** The PayPal part's texts, outside its lazy module so the page can show them while it loads. */
export const PAYPAL_TEXTS = {
  loading: 'Loading PayPal…',
  unavailable: 'PayPal could not be loaded. Check your connection or ad blocker, then close this window and try again.',
} as const;
