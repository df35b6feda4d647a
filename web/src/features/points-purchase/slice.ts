import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { PaymentsConfigView } from '../../lib/http';
import {
  checkoutClosed,
  checkoutOpened,
  providerButtonFailed,
  providerOrderApproved,
  providerOrderRequested,
  purchaseCaptured,
  purchaseFailed,
  testPurchaseRequested,
} from './actions';

export interface PurchaseState {
  /** The server's payment settings (GET /api/payments/config); null until loaded. */
  config: PaymentsConfigView | null;
  configFailed: boolean;
  /** A payment call is in flight (buttons disabled). */
  paying: boolean;
  /** The friendly message the panel shows after a failure. */
  error: string | null;
}

declare module '../../lib/store-types' {
  interface RootState {
    purchase: PurchaseState;
  }
}

const initialState: PurchaseState = { config: null, configFailed: false, paying: false, error: null };

/** The checkout panel of /content/points (which option is open is the page's own state). */
const purchaseSlice = createSlice({
  name: 'purchase',
  initialState,
  reducers: {
    configLoaded(state, action: PayloadAction<PaymentsConfigView>) {
      state.config = action.payload;
      state.configFailed = false;
    },
    configFailed(state) {
      state.configFailed = true;
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(checkoutOpened, (state) => {
        state.paying = false;
        state.error = null;
        if (!state.config) state.configFailed = false;
      })
      .addCase(checkoutClosed, (state) => {
        state.paying = false;
        state.error = null;
      })
      .addCase(testPurchaseRequested, (state) => {
        state.paying = true;
        state.error = null;
      })
      .addCase(providerOrderRequested, (state) => {
        state.error = null;
      })
      .addCase(providerOrderApproved, (state) => {
        state.paying = true;
      })
      .addCase(purchaseCaptured, (state) => {
        state.paying = false;
      })
      // The provider reports its own failure after ours (a rejected createOrder/onApprove): keep the precise message.
      .addCase(providerButtonFailed, (state, action) => {
        state.paying = false;
        state.error ??= action.payload.message;
      })
      .addCase(purchaseFailed, (state, action) => {
        state.paying = false;
        state.error = action.payload;
      });
  },
});

export const purchaseSliceActions = purchaseSlice.actions;
export const purchaseReducer = purchaseSlice.reducer;
