import type { SagaIterator } from 'redux-saga';
import { call, fork, put, select, takeEvery, takeLatest } from 'redux-saga/effects';
import type { RegisterUserResponse, UserView } from '@pass/events/kernel';
import { contentPath, httpStatusOf } from '@pass/events/kernel';
import { errorText, HttpError } from '../../lib/http';
import { ENDED_ELSEWHERE, type JoinRedirectState } from '../../lib/join-reason';
import { liveSignedOut } from '../../lib/state/live';
import { STORAGE_KEYS, type Services } from '../../lib/services';
import { userActions } from '../../lib/state/session';
import { selectResetUnderWayHere } from '../../lib/state/session-selectors';
import { loadingActions, updateMainDataActions } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';

/** Refusals that mean the stored id is stale (the session is gone, or the id is another user's). */
const STALE_ID_STATUSES = new Set([
  httpStatusOf('unauthorized'),
  // Forbidden has no domain error code of its own; the server answers it for another member's id.
  403,
  httpStatusOf('not_found'),
]);

/** docs/product.md §4: a guest becomes registered; the id is stored, main data refreshed, then /content/check. */
function* register(services: Services, action: ReturnType<typeof userActions.registerRequested>): SagaIterator {
  try {
    const answer: RegisterUserResponse = yield call(services.api.registerUser, action.payload);
    const { registered: _registered, ...user } = answer;
    services.storage.set(STORAGE_KEYS.userId, user.id);
    yield put(userActions.registerSucceeded(user));
    yield put(updateMainDataActions.updateMainDataSet(true));
    services.navigate(contentPath('check'));
  } catch (error) {
    yield put(userActions.registerFailed(errorText(error)));
  }
}

/** Logout (the participants page's link) clears local storage and the user. */
function* logout(services: Services): SagaIterator {
  try {
    yield call(services.api.logout);
  } catch (error) {
    services.logError('Logout failed', error);
  }
  services.storage.remove(STORAGE_KEYS.userId);
  yield put(userActions.userReset());
}

/**
 * The member's session ended elsewhere (the live connection says so): a guest now, on the join
 * page, which says why. A page already a guest's (it signed out itself), or the one setting the
 * new password that ended it, has nothing to do.
 */
function* endedElsewhere(services: Services, action: ReturnType<typeof liveSignedOut>): SagaIterator {
  const signedIn: boolean = yield select((state: RootState) => state.user.user.id !== '' || state.user.storedId !== '');
  if (!signedIn) return;
  // The password was set here, through a mailed link: that page says so and leads to sign in.
  const resetHere: boolean = yield select(selectResetUnderWayHere);
  if (resetHere && action.payload === 'password-changed') return;
  const joinReason = ENDED_ELSEWHERE[action.payload];
  services.storage.remove(STORAGE_KEYS.userId);
  yield put(userActions.sessionEnded(joinReason));
  services.navigate(contentPath('join'), { state: { joinReason } satisfies JoinRedirectState });
}

/** On start, the user whose id is stored (docs/product.md §7 verify-access); a failed fetch clears the loading flag (§8). */
function* restoreStoredUser(services: Services, userId: string): SagaIterator {
  try {
    const user: UserView = yield call(services.api.verifyAccess, userId);
    yield put(userActions.userSet(user));
  } catch (error) {
    services.logError('Fetching the current user failed', error);
    // A stale id (session gone or another user's) is forgotten.
    if (error instanceof HttpError && STALE_ID_STATUSES.has(error.status)) {
      services.storage.remove(STORAGE_KEYS.userId);
      yield put(userActions.userReset());
    }
    yield put(loadingActions.loadingSet(false));
  }
}

/** The member's session: join, the stored user on start, logout. */
export function* joinSaga(services: Services): SagaIterator {
  // Local storage was read into the initial state (app/store.ts).
  const userId: string = yield select((state: RootState) => state.user.storedId);
  yield takeLatest(userActions.registerRequested.type, register, services);
  yield takeEvery(userActions.logoutRequested.type, logout, services);
  yield takeEvery(liveSignedOut.type, endedElsewhere, services);
  if (userId) yield fork(restoreStoredUser, services, userId);
}
