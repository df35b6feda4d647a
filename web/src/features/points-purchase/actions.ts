import { createAction } from '@reduxjs/toolkit';
import type { CaptureOrderResponse } from '@pass/events/kernel';

/** The points page asks for the payment settings as it opens, so the panel is ready on Buy. */
export const paymentsConfigRequested = createAction('purchase/paymentsConfigRequested');
/** The Buy button of a card: opens the checkout panel (and loads the payment settings once). */
export const checkoutOpened = createAction<{ amountUsd: number }>('purchase/checkoutOpened');
export const checkoutClosed = createAction('purchase/checkoutClosed');
/** The labelled test-mode checkout: create the order, then capture it (api.ts). */
export const testPurchaseRequested = createAction<{ amountUsd: number }>('purchase/testPurchaseRequested');

/**
 * The provider's buttons need promises back (PayPal's createOrder/onApprove); the saga does the
 * server calls and settles them, so the HTTP stays in `Services` like every other call.
 */
export interface Settle<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}
export const providerOrderRequested = createAction<{ amountUsd: number } & Settle<string>>('purchase/providerOrderRequested');
export const providerOrderApproved = createAction<{ orderId: string; amountUsd: number } & Settle<void>>('purchase/providerOrderApproved');
/** The provider's own buttons failed (SDK error, buyer's payment window); the message is for the panel. */
export const providerButtonFailed = createAction<{ message: string; error: unknown }>('purchase/providerButtonFailed');

/** A capture answered by the server; the saga completes the purchase (docs/product.md §4 payment). */
export const purchaseCaptured = createAction<{ orderId: string; amountUsd: number; capture: CaptureOrderResponse }>(
  'purchase/captured',
);
/** A friendly message shown in the checkout panel. */
export const purchaseFailed = createAction<string>('purchase/failed');

/** The panel's message after a failed payment, when the server sent none of its own. */
export const PAYMENT_FAILED = 'The payment could not be completed. Please try again.';

/** Actions carrying promise callbacks (not serializable on purpose). */
export const NON_SERIALIZABLE_PURCHASE_ACTIONS = [providerOrderRequested.type, providerOrderApproved.type, providerButtonFailed.type];
