import type { SagaIterator } from 'redux-saga';
import { call, cancel, delay, fork, put, race, select, take } from 'redux-saga/effects';
import type { Task } from 'redux-saga';
import { TIMERS } from '@pass/events/kernel';
import { networkLost } from '../../lib/network-lost';
import type { Services } from '../../lib/services';
import { popupActions } from '../../lib/state/popup';
import { selectAdminAuthorized } from '../../lib/state/session-selectors';
import type { RootState } from '../../lib/store-types';

/**
 * 7 s after start: if no main banner really loaded (components/AdBanner.tsx's countAdSlots: the
 * ad's document or the network script's frame, with a size), ads are blocked (docs/product.md §4).
 */
export function* adBlockSaga(services: Services): SagaIterator {
  yield delay(TIMERS.adBlockMainCheckMs);
  const { loaded } = services.ads.count('main');
  yield put(popupActions.adBlockChecked({ blocked: loaded === 0 }));
}

function* popupBannersCheck(services: Services): SagaIterator {
  yield delay(TIMERS.adBlockPopupCheckMs);
  const { slots, loaded } = services.ads.count('popup');
  yield put(popupActions.bannerTwoLoadedSet(slots > 0 && loaded === slots));
}

function* popupCountdown(): SagaIterator {
  for (let i = 0; i < TIMERS.adsPopupCountdownSeconds; i++) {
    yield delay(1000);
    yield put(popupActions.adsTicked());
  }
}

/** The X counts only once the banners loaded. */
function* closeWhenLoaded(): SagaIterator {
  while (true) {
    yield take(popupActions.adsCloseRequested.type);
    const loaded: boolean = yield select((state: RootState) => state.popup.bannerTwoLoaded);
    if (loaded) return;
  }
}

export function* showAdsOnce(services: Services): SagaIterator {
  yield put(popupActions.adsShown());
  const probe: Task = yield fork(popupBannersCheck, services);
  const result: { closed?: unknown } = yield race({ finished: call(popupCountdown), closed: call(closeWhenLoaded) });
  yield cancel(probe);
  if (!result.closed) {
    const loaded: boolean = yield select((state: RootState) => state.popup.bannerTwoLoaded);
    if (!loaded) {
      // Hidden first: the toast must not be under the modal popup (the browser's top layer).
      yield put(popupActions.adsHidden());
      yield call(networkLost, services);
      return;
    }
  }
  yield put(popupActions.adsHidden());
}

/**
 * The ad-block check's verdict: waits for the 7 s check when it has not run yet, so a popup never
 * opens before a blocker is known (its banners could not load, and the member would be sent home
 * instead of seeing the notice).
 */
function* adsBlocked(): SagaIterator {
  const done: boolean = yield select((state: RootState) => state.popup.adBlockCheckDone);
  if (!done) yield take(popupActions.adBlockChecked.type);
  const blocked: boolean = yield select((state: RootState) => state.popup.blockMessage);
  return blocked;
}

/**
 * First popup 6 s after the cookie is accepted (and not before the ad-block check), then every
 * 300,000 ms (docs/product.md §4, §9). A detected blocker shows the notice and stops the popups.
 */
export function* adsPopupSaga(services: Services): SagaIterator {
  const accepted: boolean = yield select((state: RootState) => state.popup.acceptedCookie);
  // Accepted earlier is in the initial state (read from local storage by the store).
  if (!accepted) yield take(popupActions.cookieAccepted.type);
  let wait: number = TIMERS.adsPopupFirstDelayMs;
  while (true) {
    yield delay(wait);
    wait = TIMERS.adsPopupIntervalMs;
    const blocked: boolean = yield call(adsBlocked);
    if (blocked) return;
    const state: RootState = yield select();
    if (!state.popup.showAds || selectAdminAuthorized(state) || state.popup.showPopup) continue;
    yield fork(showAdsOnce, services);
  }
}
