import type { SagaIterator } from 'redux-saga';
import { call, put, select, takeLatest, takeLeading } from 'redux-saga/effects';
import { HttpError, refusalText } from '../../lib/http';
import { STORAGE_KEYS, type Services } from '../../lib/services';
import { userActions } from '../../lib/state/session';
import { selectResetEndsThisSession } from '../../lib/state/session-selectors';
import { resetTokenMember } from '@pass/events/kernel';
import { passwordResetActions, type PasswordResetErrorPlace } from './slice';

/**
 * A refusal where the member is looking: a 400 naming a field (`fields`) beside it; a 400 on the
 * confirmation is about the link (used, expired or forged); the rest (a 429's wait, a network
 * failure) in the form's line.
 */
function* refused(services: Services, error: unknown, aboutTheLink: boolean): SagaIterator {
  if (!(error instanceof HttpError)) services.logError('Password reset failed', error);
  const message = refusalText(error);
  if (error instanceof HttpError && error.status === 400) {
    const fields = error.body.fields ?? {};
    const place = (['email', 'password'] as const).find((f) => fields[f]);
    if (place) {
      yield put(passwordResetActions.failed({ place, message: fields[place]! }));
      return;
    }
    if (aboutTheLink) {
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

/**
 * The mailed link, on arrival (POST /api/password-reset/check, the token in the body): a used or
 * expired one says so before a password is typed. Anything but its 400 (a network failure, a
 * wait) leaves the form to the confirmation, which checks again.
 */
function* checkLink(services: Services, action: ReturnType<typeof passwordResetActions.opened>): SagaIterator {
  if (!action.payload) return;
  try {
    yield call(services.api.checkPasswordReset, action.payload);
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) {
      yield call(refused, services, error, true);
      return;
    }
    if (!(error instanceof HttpError)) services.logError('Password reset link check failed', error);
  }
  yield put(passwordResetActions.linkChecked());
}

/**
 * The new password through the mailed link. It ends every session of that member, this device's
 * too if it is theirs: the page says so itself (the live notice of it is no news here), and the
 * device is a guest afterwards.
 */
function* confirmReset(services: Services, action: ReturnType<typeof passwordResetActions.confirmRequested>): SagaIterator {
  yield put(userActions.resetHereStarted(resetTokenMember(action.payload.token)));
  try {
    yield call(services.api.confirmPasswordReset, action.payload);
    const endsThisSession: boolean = yield select(selectResetEndsThisSession);
    if (endsThisSession) services.storage.remove(STORAGE_KEYS.userId);
    yield put(userActions.resetHereEnded({ done: true }));
    yield put(passwordResetActions.confirmSucceeded());
  } catch (error) {
    yield put(userActions.resetHereEnded({ done: false }));
    yield call(refused, services, error, true);
  }
}

/** Forgotten passwords: the e-mail form and the mailed link's new-password form. */
export function* passwordResetSaga(services: Services): SagaIterator {
  yield takeLeading(passwordResetActions.resetRequested.type, requestReset, services);
  yield takeLeading(passwordResetActions.confirmRequested.type, confirmReset, services);
  yield takeLatest(passwordResetActions.opened.type, checkLink, services);
}
