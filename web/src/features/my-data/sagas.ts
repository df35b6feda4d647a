import type { SagaIterator } from 'redux-saga';
import { call, put, takeLeading } from 'redux-saga/effects';
import { contentPath, httpStatusOf } from '@pass/events/kernel';
import { HttpError, refusalText, type DownloadedFile } from '../../lib/http';
import type { JoinRedirectState, SessionEndReason } from '../../lib/join-reason';
import { STORAGE_KEYS, type Services } from '../../lib/services';
import { userActions } from '../../lib/state/session';
import { myDataActions, type MyDataAction, type MyDataErrorPlace } from './slice';
import { MY_DATA_TEXTS } from './texts';

/** Where a guest (or a member whose session is gone) is sent: join says why. */
export const MY_DATA_JOIN_STATE: JoinRedirectState = { joinReason: 'my-data' };

/** The session is over on this device: the stored id and the member are forgotten. */
function* signedOut(services: Services): SagaIterator {
  services.storage.remove(STORAGE_KEYS.userId);
  yield put(userActions.userReset());
  yield put(myDataActions.reset());
}

/**
 * The member ended their session here: a guest, on the join page, which confirms what happened
 * (the same reason in the store, should this page's own guest redirect get there first).
 */
function* ended(services: Services, joinReason: SessionEndReason): SagaIterator {
  services.storage.remove(STORAGE_KEYS.userId);
  yield put(userActions.sessionEnded(joinReason));
  yield put(myDataActions.reset());
  services.navigate(contentPath('join'), { replace: true, state: { joinReason } satisfies JoinRedirectState });
}

/**
 * A refusal shown where the member is looking: a 401 means the session is gone (to join, which
 * says why); a 400 goes beside its field (the server's `fields`, else `field`); anything else
 * (a 429 with its wait, a network failure) in the action's own line.
 */
function* refused(services: Services, action: MyDataAction, error: unknown, field?: MyDataErrorPlace): SagaIterator {
  if (error instanceof HttpError && error.status === httpStatusOf('unauthorized')) {
    yield call(signedOut, services);
    services.navigate(contentPath('join'), { state: MY_DATA_JOIN_STATE });
    return;
  }
  if (error instanceof HttpError && error.status === 400 && field) {
    const fields = error.body.fields ?? {};
    const named = (Object.keys(fields) as MyDataErrorPlace[]).filter((f) => f === 'currentPassword' || f === 'newPassword' || f === 'password');
    if (named.length > 0) {
      for (const place of named) yield put(myDataActions.failed({ place, message: fields[place]! }));
      return;
    }
    yield put(myDataActions.failed({ place: field, message: refusalText(error) }));
    return;
  }
  if (!(error instanceof HttpError)) services.logError(`My data: ${action} failed`, error);
  yield put(myDataActions.failed({ place: action, message: refusalText(error) }));
}

function* download(services: Services): SagaIterator {
  try {
    const file: DownloadedFile = yield call(services.api.myData);
    services.saveFile(file);
    yield put(myDataActions.succeeded('download'));
    services.toast.success(MY_DATA_TEXTS.downloaded);
  } catch (error) {
    yield call(refused, services, 'download', error);
  }
}

function* changePassword(services: Services, action: ReturnType<typeof myDataActions.changePasswordRequested>): SagaIterator {
  try {
    yield call(services.api.changePassword, action.payload);
    yield put(myDataActions.succeeded('changePassword'));
  } catch (error) {
    // The server's 400 is about the current password unless it names another field.
    yield call(refused, services, 'changePassword', error, 'currentPassword');
  }
}

/** Every session ends, this one too: signed out, on the join page, which says so. */
function* logoutEverywhere(services: Services): SagaIterator {
  try {
    yield call(services.api.logoutEverywhere);
  } catch (error) {
    yield call(refused, services, 'logoutEverywhere', error);
    return;
  }
  yield call(ended, services, 'signed-out-everywhere');
}

function* deleteAccount(services: Services, action: ReturnType<typeof myDataActions.deleteAccountRequested>): SagaIterator {
  try {
    yield call(services.api.deleteMyAccount, action.payload);
  } catch (error) {
    yield call(refused, services, 'deleteAccount', error, 'password');
    return;
  }
  yield put(myDataActions.succeeded('deleteAccount'));
  yield call(ended, services, 'account-deleted');
}

/** "Your data": download, change password, sign out everywhere, delete the account. */
export function* myDataSaga(services: Services): SagaIterator {
  yield takeLeading(myDataActions.downloadRequested.type, download, services);
  yield takeLeading(myDataActions.changePasswordRequested.type, changePassword, services);
  yield takeLeading(myDataActions.logoutEverywhereRequested.type, logoutEverywhere, services);
  yield takeLeading(myDataActions.deleteAccountRequested.type, deleteAccount, services);
}
