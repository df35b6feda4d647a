import type { SagaIterator } from 'redux-saga';
import { call, fork, put, select, takeEvery, takeLatest } from 'redux-saga/effects';
import type { RegisterUserResponse, UserView } from '@pass/events/kernel';
import { contentPath, httpStatusOf } from '@pass/events/kernel';
import { errorText, HttpError } from '../../lib/http';
import { STORAGE_KEYS, type Services } from '../../lib/services';
import { userActions } from '../../lib/state/session';
import { loadingActions, updateMainDataActions } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';

/** Refusals that mean the stored id is stale (the session is gone, or the id is another user's). */
const STALE_ID_STATUSES = new Set([
  httpStatusOf('unauthorized'),
  // Forbidden has no domain error code of its own; the server answers it for another member's id.
  403,
  httpStatusOf('not_found'),
]);

/** Spec §4: a guest becomes registered; the id is stored, main data refreshed, then /content/check. */
function* register(s: Services, action: ReturnType<typeof userActions.registerRequested>): SagaIterator {
  try {
    const answer: RegisterUserResponse = yield call(s.api.registerUser, action.payload);
    const { registered: _registered, ...user } = answer;
    s.storage.set(STORAGE_KEYS.userId, user.id);
    yield put(userActions.registerSucceeded(user));
    yield put(updateMainDataActions.updateMainDataSet(true));
    s.navigate(contentPath('check'));
  } catch (error) {
    yield put(userActions.registerFailed(errorText(error)));
  }
}

/** Logout (the participants page's link) clears local storage and the user. */
function* logout(s: Services): SagaIterator {
  try {
    yield call(s.api.logout);
  } catch (error) {
    s.logError('Logout failed', error);
  }
  s.storage.remove(STORAGE_KEYS.userId);
  yield put(userActions.userReset());
}

/** On start, the user whose id is stored (spec §7 verify-access); a failed fetch clears the loading flag (§8). */
function* restoreStoredUser(s: Services, userId: string): SagaIterator {
  try {
    const user: UserView = yield call(s.api.verifyAccess, userId);
    yield put(userActions.userSet(user));
  } catch (error) {
    s.logError('Fetching the current user failed', error);
    // A stale id (session gone or another user's) is forgotten.
    if (error instanceof HttpError && STALE_ID_STATUSES.has(error.status)) {
      s.storage.remove(STORAGE_KEYS.userId);
      yield put(userActions.userReset());
    }
    yield put(loadingActions.loadingSet(false));
  }
}

/** The member's session: join, the stored user on start, logout. */
export function* joinSaga(s: Services): SagaIterator {
  // Local storage was read into the initial state (app/store.ts).
  const userId: string = yield select((st: RootState) => st.user.storedId);
  yield takeLatest(userActions.registerRequested.type, register, s);
  yield takeEvery(userActions.logoutRequested.type, logout, s);
  if (userId) yield fork(restoreStoredUser, s, userId);
}
