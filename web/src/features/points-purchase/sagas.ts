import type { SagaIterator } from 'redux-saga';
import { call, put, select, takeEvery, takeLatest } from 'redux-saga/effects';
import type { CaptureOrderResponse, CreateOrderResponse } from '@pass/events/kernel';
import { contentPath } from '@pass/events/kernel';
import { HttpError, type PaymentsConfigView } from '../../lib/http';
import type { Services } from '../../lib/services';
import { userActions } from '../../lib/state/session';
import { loadingActions, updateMainDataActions } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';
import {
  checkoutOpened,
  paymentsConfigRequested,
  providerButtonFailed,
  providerOrderApproved,
  providerOrderRequested,
  purchaseCaptured,
  purchaseFailed,
  testPurchaseRequested,
  PAYMENT_FAILED,
} from './actions';
import { purchaseSliceActions } from './slice';

export const PURCHASE_SUCCESS = 'Points successfully acquired!';

/** The server's own message when it sent one (they are written for buyers), else a generic one. */
export function paymentErrorMessage(error: unknown): string {
  return error instanceof HttpError && error.body.error ? error.body.error : PAYMENT_FAILED;
}

/** The payment settings are the server's (provider, client id): read once, when a checkout first opens. */
function* loadConfig(services: Services): SagaIterator {
  const loaded: PaymentsConfigView | null = yield select((state: RootState) => state.purchase.config);
  if (loaded) return;
  try {
    const config: PaymentsConfigView = yield call(services.api.paymentsConfig);
    yield put(purchaseSliceActions.configLoaded(config));
  } catch (error) {
    services.logError('Loading the payment settings failed', error);
    yield put(purchaseSliceActions.configFailed());
  }
}

/** Test mode: the server's simulated provider creates and captures without a payment window. */
function* testPurchase(services: Services, action: ReturnType<typeof testPurchaseRequested>): SagaIterator {
  try {
    const order: CreateOrderResponse = yield call(services.api.createOrder, action.payload.amountUsd);
    const capture: CaptureOrderResponse = yield call(services.api.captureOrder, order.orderId);
    yield put(purchaseCaptured({ orderId: order.orderId, amountUsd: action.payload.amountUsd, capture }));
  } catch (error) {
    // Logged as docs/product.md §8 asks, and shown in the panel so the buyer knows what happened.
    services.logError('Payment failed', error);
    yield put(purchaseFailed(paymentErrorMessage(error)));
  }
}

/** PayPal's createOrder: the server creates the order from its own price table. Log and re-throw (docs/product.md §8). */
function* providerOrder(services: Services, action: ReturnType<typeof providerOrderRequested>): SagaIterator {
  const { amountUsd, resolve, reject } = action.payload;
  try {
    const order: CreateOrderResponse = yield call(services.api.createOrder, amountUsd);
    resolve(order.orderId);
  } catch (error) {
    services.logError('Creating the payment order failed', error);
    yield put(purchaseFailed(paymentErrorMessage(error)));
    reject(error);
  }
}

/** PayPal's onApprove: the server captures, checks and credits; only then is the purchase complete. */
function* providerApproval(services: Services, action: ReturnType<typeof providerOrderApproved>): SagaIterator {
  const { orderId, amountUsd, resolve, reject } = action.payload;
  try {
    const capture: CaptureOrderResponse = yield call(services.api.captureOrder, orderId);
    resolve();
    yield put(purchaseCaptured({ orderId, amountUsd, capture }));
  } catch (error) {
    services.logError('Capturing the payment failed', error);
    yield put(purchaseFailed(paymentErrorMessage(error)));
    reject(error);
  }
}

function providerFailure(services: Services, action: ReturnType<typeof providerButtonFailed>) {
  services.logError('Payment button error', action.payload.error);
}

/** Only a COMPLETED capture counts (docs/product.md §4 payment). */
function* completePurchase(services: Services, action: ReturnType<typeof purchaseCaptured>): SagaIterator {
  const { orderId, amountUsd, capture } = action.payload;
  if (capture.status !== 'COMPLETED' || capture.points <= 0) return;
  const email: string = yield select((state: RootState) => state.user.user.email);
  yield put(loadingActions.loadingSet(true));
  try {
    // The spec's helper; the server answers a capture it already credited with the same result.
    yield call(services.api.buyPoints, { orderId, amount: amountUsd, email });
  } catch (error) {
    services.logError('Registering the purchase failed', error);
  }
  yield put(loadingActions.loadingSet(false));
  yield put(userActions.userSet(capture.user));
  yield put(updateMainDataActions.updateMainDataSet(true));
  services.toast.success(PURCHASE_SUCCESS);
  services.navigate(contentPath('registered'));
}

export function* purchaseSaga(services: Services): SagaIterator {
  yield takeLatest([paymentsConfigRequested.type, checkoutOpened.type], loadConfig, services);
  yield takeLatest(testPurchaseRequested.type, testPurchase, services);
  yield takeEvery(providerOrderRequested.type, providerOrder, services);
  yield takeEvery(providerOrderApproved.type, providerApproval, services);
  yield takeEvery(providerButtonFailed.type, providerFailure, services);
  yield takeLatest(purchaseCaptured.type, completePurchase, services);
}
