import type { SagaIterator } from 'redux-saga';
import type { Task } from 'redux-saga';
import { call, delay, fork, join, put, race, select, take, takeEvery, takeLatest } from 'redux-saga/effects';
import type { AdViewTicketResponse, FreePointResponse, UserView } from '@pass/events/kernel';
import { FREE_POINT_AWARDED_AT_SECOND, TIMERS } from '@pass/events/kernel';
import { HttpError } from '../../lib/http';
import { networkLost } from '../../lib/network-lost';
import type { Services } from '../../lib/services';
import { awaitAck, type AckAnswer, type LiveSocket } from '../../lib/socket';
import { isPageEntered, isPageLeft } from '../../lib/state/page';
import { popupActions } from '../../lib/state/popup';
import { userActions } from '../../lib/state/session';
import { mainDataActions } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';
import { checkActions, checksecondsActions } from './slice';

export const POINT_ADDED = 'A new point has been added';

/** The third banner type (the one on /content/check) must hold a loaded iframe. */
function* thirdBannerCheck(services: Services): SagaIterator {
  yield delay(TIMERS.adBlockPopupCheckMs);
  const { slots, loaded } = services.ads.count('check');
  yield put(popupActions.bannerThreeSet(slots > 0 && loaded === slots));
}

/**
 * The server's proof that this countdown started now: it awards the point only for a ticket
 * at least the countdown's length old. '' when it could not be had (the award then answers why).
 */
function* adViewTicket(services: Services): SagaIterator {
  try {
    const answer: AdViewTicketResponse = yield call(services.api.adViewTicket);
    return answer.ticket;
  } catch (error) {
    services.logError('The free-point ticket could not be had', error);
    return '';
  }
}

/** 30 → 0, one per second (docs/product.md §2 /content/check, §4). */
function* countdown(services: Services): SagaIterator {
  // Asked as the countdown starts, so the ticket's time is the countdown's.
  const ticketTask: Task = yield fork(adViewTicket, services);
  let seconds: number = yield select((state: RootState) => state.checkseconds.seconds);
  while (seconds > 0) {
    yield delay(1000);
    yield put(checksecondsActions.secondsTicked());
    seconds = yield select((state: RootState) => state.checkseconds.seconds);
    if (seconds === TIMERS.thirdBannerCheckAtSecond) yield fork(thirdBannerCheck, services);
    if (seconds === TIMERS.contentBannerDeadlineSecond) {
      const bannerLoaded: boolean = yield select((state: RootState) => state.popup.bannerThree);
      if (!bannerLoaded) {
        yield call(networkLost, services);
        return;
      }
    }
    if (seconds === FREE_POINT_AWARDED_AT_SECOND) {
      // The toast waits for the server's yes (awardFreePoint): a tab whose point another tab
      // already took reads only the refusal.
      yield put(checkActions.checkSet(true));
      const ticket: string = yield join(ticketTask);
      yield put(checkActions.freePointRequested({ ticket }));
    }
  }
  yield put(checkActions.checkSet(false));
  services.navigate('/');
}

function* runCheck(services: Services): SagaIterator {
  yield put(checksecondsActions.secondsReset());
  yield put(popupActions.bannerThreeSet(false));
  yield race({ done: call(countdown, services), left: take(isPageLeft('check')) });
  // Leaving (or finishing) resets the countdown to 30.
  yield put(checksecondsActions.secondsReset());
  yield put(checkActions.checkSet(false));
}

/** A refusal's message is the server's, written for the member (e.g. the countdown did not run). */
function freePointRefused(services: Services, message: string, detail: unknown): void {
  services.toast.error(message || 'The free point could not be added, please try again');
  services.logError('The free point was refused', detail);
}

/** The point is the server's: "A new point has been added" once it says so, with the new balance. */
function* pointAdded(services: Services, user: UserView): SagaIterator {
  yield put(userActions.userSet(user));
  services.toast.success(POINT_ADDED);
}

/** The point: increaseChatCount over the live connection (docs/product.md §4), else over HTTP. */
function* awardFreePoint(services: Services, socket: LiveSocket, action: ReturnType<typeof checkActions.freePointRequested>): SagaIterator {
  if (socket.connected) {
    const answer: AckAnswer<FreePointResponse> = yield call(awaitAck<FreePointResponse>, (ack) =>
      socket.emit('increaseChatCount', action.payload, ack),
    );
    if (answer.ok) yield call(pointAdded, services, answer.data.user);
    // 408: no answer in time (awaitAck), nothing the member can read.
    else freePointRefused(services, answer.status === 408 ? '' : answer.error, answer.error);
    return;
  }
  try {
    const answer: FreePointResponse = yield call(services.api.freePoint, action.payload.ticket);
    yield call(pointAdded, services, answer.user);
  } catch (error) {
    freePointRefused(services, error instanceof HttpError ? error.body.error : '', error);
  }
}

/** Live main data while checking: the current user is fetched again (docs/product.md §4). */
function* refreshUserWhileChecking(services: Services): SagaIterator {
  const state: RootState = yield select();
  if (!state.check.isChecked || !state.user.user.email) return;
  try {
    const user: UserView = yield call(services.api.me);
    yield put(userActions.userSet(user));
  } catch (error) {
    services.logError('Fetching the current user failed', error);
  }
}

export function* freePointsSaga(services: Services, socket: LiveSocket): SagaIterator {
  yield takeLatest(isPageEntered('check'), runCheck, services);
  yield takeEvery(checkActions.freePointRequested.type, awardFreePoint, services, socket);
  yield takeLatest(mainDataActions.updatedMainDataReceived.type, refreshUserWhileChecking, services);
}
