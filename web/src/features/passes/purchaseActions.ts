import { createAction } from '@reduxjs/toolkit';
import type { CaptureOrderResponse } from '@pass/events/api';

/** The labelled test-mode checkout: create the order, then capture it (api.ts). */
export const testPurchaseRequested = createAction<{ amountUsd: number }>('purchase/testPurchaseRequested');
/** A provider's buttons dispatch this after their own capture; the saga completes the purchase. */
export const purchaseCaptured = createAction<{ orderId: string; amountUsd: number; capture: CaptureOrderResponse }>(
  'purchase/captured',
);
export const purchaseFailed = createAction<string>('purchase/failed');
