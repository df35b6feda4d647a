import type { SagaIterator } from 'redux-saga';
import type { PayloadAction } from '@reduxjs/toolkit';
import { all, call, delay, fork, put, race, select, take, takeLatest } from 'redux-saga/effects';
import { PRODUCT_NAME, TIMERS } from '@pass/events/kernel';
import type { AdminView, ChatHistory, CountriesView, MainDataView, Page, RankingEntry, RegistryRow, UserView } from '@pass/events/kernel';
import { HttpError } from '../../api/http';
import { STORAGE_KEYS, type Services } from '../../app/services';
import type { RootState } from '../../app/store';
import { adminActions } from '../admin/slice';
import { popupActions } from '../ads/popupSlice';
import { chatActions } from '../chat/slice';
import { liveMainDataRequested } from '../live/actions';
import { isPageEntered } from '../ui/pageActions';
import { userActions } from '../user/slice';
import { loadingActions } from './loadingSlice';
import { mainDataActions } from './mainDataSlice';
import { updateMainDataActions } from './updateMainDataSlice';
import { usersActions } from './usersSlice';

export const welcomeText = `Welcome to ${PRODUCT_NAME}!`;
/** Typing in a search box asks the server once the user pauses. */
export const SEARCH_DEBOUNCE_MS = 250;

function* loadUser(s: Services, userId: string): SagaIterator {
  try {
    const user: UserView = yield call(s.api.verifyAccess, userId);
    yield put(userActions.userSet(user));
  } catch (error) {
    s.logError('Fetching the current user failed', error);
    // A stale id (session gone or another user's) is forgotten.
    if (error instanceof HttpError && (error.status === 401 || error.status === 403 || error.status === 404)) {
      s.storage.remove(STORAGE_KEYS.userId);
      yield put(userActions.userReset());
    }
    yield put(loadingActions.loadingSet(false));
  }
}

function* loadAdmin(s: Services, adminId: string): SagaIterator {
  try {
    const admin: AdminView = yield call(s.api.verifyAdmin, adminId);
    if (!admin.authorized) s.storage.remove(STORAGE_KEYS.adminId);
    yield put(adminActions.adminSet(admin));
    // Admins never get the ads popup.
    yield put(popupActions.showAdsSet(!admin.authorized));
  } catch (error) {
    s.logError('Verifying the admin failed', error);
  }
}

export function* fetchMainData(s: Services): SagaIterator {
  try {
    const [data, countries]: [MainDataView, CountriesView] = yield all([call(s.api.mainData), call(s.api.countries)]);
    yield put(mainDataActions.mainDataReceived(data));
    yield put(mainDataActions.countriesReceived(countries));
  } catch (error) {
    s.logError('Fetching main data failed', error);
  }
}

/** History over HTTP too, so the chat shows before (or without) the live connection. */
function* fetchChatHistory(s: Services): SagaIterator {
  try {
    const history: ChatHistory = yield call(s.api.chatMessages);
    yield put(chatActions.chatHistoryReceived(history));
  } catch (error) {
    s.logError('Fetching the chat failed', error);
  }
}

/** The overlay hides when main data arrives, or after 60 s at most (spec §2 home). */
function* loadingOverlay(): SagaIterator {
  yield race({
    loaded: take([mainDataActions.mainDataReceived.type, mainDataActions.updatedMainDataReceived.type]),
    timeout: delay(TIMERS.loadingOverlayMaxMs),
  });
  yield put(loadingActions.loadingSet(false));
}

/** Once per visit, 2 s after home first shows. */
function* welcomeToast(s: Services): SagaIterator {
  yield take(isPageEntered('home'));
  yield delay(TIMERS.welcomeToastMs);
  s.toast.blank(welcomeText);
}

function* refreshMainData(s: Services, action: ReturnType<typeof updateMainDataActions.updateMainDataSet>): SagaIterator {
  if (!action.payload) return;
  yield put(liveMainDataRequested());
  yield call(fetchMainData, s);
  yield put(updateMainDataActions.updateMainDataSet(false));
}

function* loadRanking(s: Services, query: string): SagaIterator {
  try {
    const page: Page<RankingEntry> = yield call(s.api.ranking, query);
    yield put(usersActions.rankingReceived(page));
  } catch (error) {
    s.logError('Fetching the ranking failed', error);
  }
}

function* searchRanking(s: Services, action: PayloadAction<string>): SagaIterator {
  yield delay(SEARCH_DEBOUNCE_MS);
  yield call(loadRanking, s, action.payload);
}

function* loadRegistry(s: Services, query: string): SagaIterator {
  try {
    const page: Page<RegistryRow> = yield call(s.api.registry, query);
    yield put(usersActions.registryReceived(page));
  } catch (error) {
    s.logError('Fetching the registry failed', error);
  }
}

function* searchRegistry(s: Services, action: PayloadAction<string>): SagaIterator {
  yield delay(SEARCH_DEBOUNCE_MS);
  yield call(loadRegistry, s, action.payload);
}

/** Live main data: re-fetch the user while checking, and the lists that are on screen (spec §4). */
function* afterLiveMainData(s: Services): SagaIterator {
  const state: RootState = yield select();
  if (state.check.isChecked && state.user.user.email) {
    try {
      const user: UserView = yield call(s.api.me);
      yield put(userActions.userSet(user));
    } catch (error) {
      s.logError('Fetching the current user failed', error);
    }
  }
  // Many members change at once: refresh the lists at most once per burst.
  yield delay(500);
  if (state.users.ranking.loaded) yield call(loadRanking, s, state.users.ranking.query);
  if (state.users.registry.loaded) yield call(loadRegistry, s, state.users.registry.query);
}

export function* siteSaga(s: Services): SagaIterator {
  // Local storage was read into the initial state (store.ts).
  const userId: string = yield select((st: RootState) => st.user.storedId);
  const adminId: string = yield select((st: RootState) => st.admin.storedId);

  yield fork(loadingOverlay);
  yield fork(welcomeToast, s);
  yield takeLatest(updateMainDataActions.updateMainDataSet.type, refreshMainData, s);
  yield takeLatest(usersActions.rankingRequested.type, searchRanking, s);
  yield takeLatest(usersActions.registryRequested.type, searchRegistry, s);
  yield takeLatest(mainDataActions.updatedMainDataReceived.type, afterLiveMainData, s);

  if (userId) yield fork(loadUser, s, userId);
  if (adminId) yield fork(loadAdmin, s, adminId);
  yield fork(fetchMainData, s);
  yield fork(fetchChatHistory, s);
}
