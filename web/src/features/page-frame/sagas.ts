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

export function* fetchMainData(services: Services): SagaIterator {
  try {
    const [data, countries]: [MainDataView, CountriesView] = yield all([call(services.api.mainData), call(services.api.countries)]);
    yield put(mainDataActions.mainDataReceived(data));
    yield put(mainDataActions.countriesReceived(countries));
  } catch (error) {
    services.logError('Fetching main data failed', error);
  }
}

/** The overlay hides when main data arrives, or after 60 s at most (docs/product.md §2 home). */
function* loadingOverlay(): SagaIterator {
  yield race({
    loaded: take([mainDataActions.mainDataReceived.type, mainDataActions.updatedMainDataReceived.type]),
    timeout: delay(TIMERS.loadingOverlayMaxMs),
  });
  yield put(loadingActions.loadingSet(false));
}

/** Once per visit, 2 s after home first shows. */
function* welcomeToast(services: Services): SagaIterator {
  yield take(isPageEntered('home'));
  yield delay(TIMERS.welcomeToastMs);
  services.toast.blank(welcomeText);
}

function* refreshMainData(services: Services, action: ReturnType<typeof updateMainDataActions.updateMainDataSet>): SagaIterator {
  if (!action.payload) return;
  yield put(liveMainDataRequested());
  yield call(fetchMainData, services);
  yield put(updateMainDataActions.updateMainDataSet(false));
}

/** Start (docs/product.md §2 home): the site's figures (main data) and the loading overlay, the welcome toast; later refreshes on request. */
export function* siteSaga(services: Services): SagaIterator {
  yield fork(loadingOverlay);
  yield fork(welcomeToast, services);
  yield takeLatest(updateMainDataActions.updateMainDataSet.type, refreshMainData, services);
  yield fork(fetchMainData, services);
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

/** Accepting stores the string "true" under acceptedCookie (docs/product.md §4). */
export function* cookieSaga(services: Services): SagaIterator {
  yield takeEvery(popupActions.cookieAccepted.type, () => services.storage.set(STORAGE_KEYS.acceptedCookie, 'true'));
}
