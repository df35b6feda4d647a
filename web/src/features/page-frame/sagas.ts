import type { SagaIterator } from 'redux-saga';
import { all, call, delay, fork, put, race, take, takeEvery, takeLatest } from 'redux-saga/effects';
import { PRODUCT_NAME, TIMERS } from '@pass/events/kernel';
import type { CountriesView, MainDataView } from '@pass/events/kernel';
import { STORAGE_KEYS, type Services } from '../../lib/services';
import { liveMainDataRequested } from '../../lib/state/live';
import { isPageEntered } from '../../lib/state/page';
import { popupActions } from '../../lib/state/popup';
import { loadingActions, mainDataActions, updateMainDataActions } from '../../lib/state/site';
import { globalPostActions } from './global-post-slice';

export const welcomeText = `Welcome to ${PRODUCT_NAME}!`;

export function* fetchMainData(s: Services): SagaIterator {
  try {
    const [data, countries]: [MainDataView, CountriesView] = yield all([call(s.api.mainData), call(s.api.countries)]);
    yield put(mainDataActions.mainDataReceived(data));
    yield put(mainDataActions.countriesReceived(countries));
  } catch (error) {
    s.logError('Fetching main data failed', error);
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

/** Start (spec §2 home): the site's figures (main data) and the loading overlay, the welcome toast; later refreshes on request. */
export function* siteSaga(s: Services): SagaIterator {
  yield fork(loadingOverlay);
  yield fork(welcomeToast, s);
  yield takeLatest(updateMainDataActions.updateMainDataSet.type, refreshMainData, s);
  yield fork(fetchMainData, s);
}

/** The new-member popup hides 10 s after the newest post arrives; a newer post restarts it. */
function* hideLater(action: ReturnType<typeof globalPostActions.globalPostReceived>): SagaIterator {
  if (!action.payload) return;
  yield delay(TIMERS.newMemberPopupMs);
  yield put(globalPostActions.globalPostHidden());
}

export function* globalPostSaga(): SagaIterator {
  yield takeLatest(globalPostActions.globalPostReceived.type, hideLater);
}

/** Accepting stores the string "true" under acceptedCookie (spec §4). */
export function* cookieSaga(s: Services): SagaIterator {
  yield takeEvery(popupActions.cookieAccepted.type, () => s.storage.set(STORAGE_KEYS.acceptedCookie, 'true'));
}
