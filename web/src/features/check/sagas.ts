import type { SagaIterator } from 'redux-saga';
import type { Task } from 'redux-saga';
import { call, delay, fork, join, put, race, select, take, takeLatest } from 'redux-saga/effects';
import type { AdViewTicketResponse } from '@pass/events/kernel';
import { FREE_POINT_AWARDED_AT_SECOND, TIMERS } from '@pass/events/kernel';
import type { Services } from '../../app/services';
import type { RootState } from '../../app/store';
import { popupActions } from '../ads/popupSlice';
import { isPageEntered, isPageLeft } from '../ui/pageActions';
import { checkActions, checksecondsActions } from './slice';

export const NETWORK_LOST = 'Network connection lost';
export const POINT_ADDED = 'A new point has been added';

/** The third banner type (the one on /content/check) must hold a loaded iframe. */
function* thirdBannerCheck(s: Services): SagaIterator {
  yield delay(TIMERS.adBlockPopupCheckMs);
  const { slots, loaded } = s.ads.count('check');
  yield put(popupActions.bannerThreeSet(slots > 0 && loaded === slots));
}

/**
 * The server's proof that this countdown started now: it awards the point only for a ticket
 * at least the countdown's length old. '' when it could not be had (the award then answers why).
 */
function* adViewTicket(s: Services): SagaIterator {
  try {
    const answer: AdViewTicketResponse = yield call(s.api.adViewTicket);
    return answer.ticket;
  } catch (error) {
    s.logError('The free-point ticket could not be had', error);
    return '';
  }
}

/** 30 → 0, one per second (spec §2 /content/check, §4). */
function* countdown(s: Services): SagaIterator {
  // Asked as the countdown starts, so the ticket's time is the countdown's.
  const ticketTask: Task = yield fork(adViewTicket, s);
  let seconds: number = yield select((st: RootState) => st.checkseconds.seconds);
  while (seconds > 0) {
    yield delay(1000);
    yield put(checksecondsActions.secondsTicked());
    seconds = yield select((st: RootState) => st.checkseconds.seconds);
    if (seconds === TIMERS.thirdBannerCheckAtSecond) yield fork(thirdBannerCheck, s);
    if (seconds === TIMERS.contentBannerDeadlineSecond) {
      const bannerLoaded: boolean = yield select((st: RootState) => st.popup.bannerThree);
      if (!bannerLoaded) {
        s.toast.error(NETWORK_LOST);
        yield delay(TIMERS.redirectAfterLostConnectionMs);
        s.redirectHome();
        return;
      }
    }
    if (seconds === FREE_POINT_AWARDED_AT_SECOND) {
      s.toast.success(POINT_ADDED);
      yield put(checkActions.checkSet(true));
      const ticket: string = yield join(ticketTask);
      yield put(checkActions.freePointRequested({ ticket }));
    }
  }
  yield put(checkActions.checkSet(false));
  s.navigate('/');
}

function* runCheck(s: Services): SagaIterator {
  yield put(checksecondsActions.secondsReset());
  yield put(popupActions.bannerThreeSet(false));
  yield race({ done: call(countdown, s), left: take(isPageLeft('check')) });
  // Leaving (or finishing) resets the countdown to 30.
  yield put(checksecondsActions.secondsReset());
  yield put(checkActions.checkSet(false));
}

export function* checkSaga(s: Services): SagaIterator {
  yield takeLatest(isPageEntered('check'), runCheck, s);
}
