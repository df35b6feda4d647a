import type { SagaIterator } from 'redux-saga';
import { call, put, select, takeLatest } from 'redux-saga/effects';
import type { CaptureOrderResponse, CreateOrderResponse } from '@pass/events/api';
import type { Services } from '../../app/services';
import type { RootState } from '../../app/store';
import { loadingActions } from '../site/loadingSlice';
import { updateMainDataActions } from '../site/updateMainDataSlice';
import { userActions } from '../user/slice';
import { purchaseCaptured, purchaseFailed, testPurchaseRequested } from './purchaseActions';

export const PURCHASE_SUCCESS = 'Points successfully acquired!';

/** Test mode: the server's simulated provider creates and captures without a payment window. */
function* testPurchase(s: Services, action: ReturnType<typeof testPurchaseRequested>): SagaIterator {
  try {
    const order: CreateOrderResponse = yield call(s.api.createOrder, action.payload.amountUsd);
    const capture: CaptureOrderResponse = yield call(s.api.captureOrder, order.orderId);
    yield put(purchaseCaptured({ orderId: order.orderId, amountUsd: action.payload.amountUsd, capture }));
  } catch (error) {
    // Payment errors are only logged (spec §8).
    s.logError('Payment failed', error);
    yield put(purchaseFailed(String(error)));
  }
}

/** Only a COMPLETED capture counts (spec §4 payment). */
function* completePurchase(s: Services, action: ReturnType<typeof purchaseCaptured>): SagaIterator {
  const { orderId, amountUsd, capture } = action.payload;
  if (capture.status !== 'COMPLETED' || capture.points <= 0) return;
  const email: string = yield select((st: RootState) => st.user.user.email);
  yield put(loadingActions.loadingSet(true));
  try {
    yield call(s.api.buyPoints, { orderId, amount: amountUsd, email });
  } catch (error) {
    s.logError('Registering the purchase failed', error);
  }
  yield put(loadingActions.loadingSet(false));
  yield put(userActions.userSet(capture.user));
  yield put(updateMainDataActions.updateMainDataSet(true));
  s.toast.success(PURCHASE_SUCCESS);
  s.navigate('/content/registered');
}

export function* purchaseSaga(s: Services): SagaIterator {
  yield takeLatest(testPurchaseRequested.type, testPurchase, s);
  yield takeLatest(purchaseCaptured.type, completePurchase, s);
}
