import { eventChannel, type EventChannel, type SagaIterator } from 'redux-saga';
import { call, put, select, take, takeEvery, takeLatest } from 'redux-saga/effects';
import type { ProgressDay, ProgressView } from '@pass/events/kernel';
import type { Services } from '../../lib/services';
import type { LiveSocket } from '../../lib/socket';
import { liveConnected } from '../../lib/state/live';
import type { RootState } from '../../lib/store-types';
import { progressActions } from './slice';

/** The live `progress` event (docs/product.md §4): the current day, after a batch changed it. */
function progressChannel(socket: LiveSocket): EventChannel<ProgressDay> {
  return eventChannel<ProgressDay>((emit) => {
    socket.on('progress', (day) => emit(day));
    // The page frame's live connection closes the socket.
    return () => {};
  });
}

function* fetchProgress(services: Services): SagaIterator {
  try {
    const view: ProgressView = yield call(services.api.progress);
    yield put(progressActions.progressReceived(view));
  } catch (error) {
    services.logError('Fetching the progress failed', error);
    yield put(progressActions.progressFailed());
  }
}

/**
 * The progress page's data: GET /api/progress when the page asks, the live days laid over it
 * as they come, and the whole series asked again after a reconnect once the page has asked
 * (days pushed while the connection was down are lost).
 */
export function* progressSaga(services: Services, socket: LiveSocket): SagaIterator {
  const channel: EventChannel<ProgressDay> = yield call(progressChannel, socket);
  yield takeLatest(progressActions.progressRequested.type, fetchProgress, services);
  yield takeEvery(liveConnected.type, function* askAgain(): SagaIterator {
    const state: RootState = yield select();
    if (state.progress.view !== null || state.progress.failed) yield put(progressActions.progressRequested());
  });
  try {
    while (true) {
      const day: ProgressDay = yield take(channel);
      yield put(progressActions.progressDayReceived(day));
    }
  } finally {
    channel.close();
  }
}
