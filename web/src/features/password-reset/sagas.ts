import type { SagaIterator } from 'redux-saga';
import { call, put, takeLeading } from 'redux-saga/effects';
import { HttpError, refusalText } from '../../lib/http';
import type { Services } from '../../lib/services';
import { passwordResetActions, type PasswordResetErrorPlace } from './slice';

/**
 * A refusal where the member is looking: a 400 naming a field (`fields`) beside it; a 400 on the
 * confirmation is about the link (used, expired or forged); the rest (a 429's wait, a network
 * failure) in the form's line.
 */
function* refused(services: Services, error: unknown, confirming: boolean): SagaIterator {
  if (!(error instanceof HttpError)) services.logError('Password reset failed', error);
  const message = refusalText(error);
  if (error instanceof HttpError && error.status === 400) {
    const fields = error.body.fields ?? {};
    const place = (['email', 'password'] as const).find((f) => fields[f]);
    if (place) {
      yield put(passwordResetActions.failed({ place, message: fields[place]! }));
      return;
    }
    if (confirming) {
      yield put(passwordResetActions.failed({ place: 'form', message, linkInvalid: true }));
      return;
    }
  }
  const place: PasswordResetErrorPlace = 'form';
  yield put(passwordResetActions.failed({ place, message }));
}

/** POST /api/password-reset: the same confirmation whether or not the e-mail is registered. */
function* requestReset(services: Services, action: ReturnType<typeof passwordResetActions.resetRequested>): SagaIterator {
  try {
    yield call(services.api.requestPasswordReset, action.payload);
    yield put(passwordResetActions.resetRequestAccepted());
  } catch (error) {
    yield call(refused, services, error, false);
  }
}

function* confirmReset(services: Services, action: ReturnType<typeof passwordResetActions.confirmRequested>): SagaIterator {
  try {
    yield call(services.api.confirmPasswordReset, action.payload);
    yield put(passwordResetActions.confirmSucceeded());
  } catch (error) {
    yield call(refused, services, error, true);
  }
}

/** Forgotten passwords: the e-mail form and the mailed link's new-password form. */
export function* passwordResetSaga(services: Services): SagaIterator {
  yield takeLeading(passwordResetActions.resetRequested.type, requestReset, services);
  yield takeLeading(passwordResetActions.confirmRequested.type, confirmReset, services);
}
