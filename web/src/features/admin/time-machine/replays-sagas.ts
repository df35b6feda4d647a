import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { all, call, delay, fork, put, race, select, take, takeEvery, takeLatest } from 'redux-saga/effects';
import type { ChatHistory, CountriesView, MainDataView, Page, ProgressView, RankingEntry, ReplayDiff, ReplayStatus } from '@pass/events/kernel';
import { HttpError } from '../../../lib/http';
import { SEARCH_DEBOUNCE_MS } from '../../../lib/list';
import type { Services } from '../../../lib/services';
import type { RootState } from '../../../lib/store-types';
import { replayRequestOf, type MomentChoice } from './moment';
import { timeMachineActions as actions } from './replays-slice';
import { TIME_MACHINE_TEXTS as T } from './texts';

/** How often a running replay's status is asked for, and how many times before giving up. */
export const REPLAY_POLL_MS = 500;
export const REPLAY_POLL_LIMIT = 1_200;

const is = (error: unknown, status: number) => error instanceof HttpError && error.status === status;

/**
 * What the admin reads about a failed call: the replay routes' own words (`{ error }`, in
 * Spanish for the admin), else ours for the status.
 */
export function replayErrorText(error: unknown): string {
  if (!(error instanceof HttpError)) return T.noAnswer;
  if (error.body.error) return error.body.error;
  if (error.status === 429) return T.tooMany;
  if (error.status === 409) return T.stillRunning;
  return T.status(error.status);
}

const replayOf = (id: string) => (state: RootState) => state.timeMachine.replays.find((r) => r.id === id);

/** Reads a ready replay's bodies onto the screen; false when the server says it still runs (409). */
function* loadBodies(services: Services, id: string): SagaIterator {
  const query: string = yield select((state: RootState) => state.timeMachine.ranking.query);
  try {
    const [mainData, countries, chat, ranking]: [MainDataView, CountriesView, ChatHistory, Page<RankingEntry>] = yield all([
      call(services.api.replayMainData, id),
      call(services.api.replayCountries, id),
      call(services.api.replayChatMessages, id),
      call(services.api.replayRanking, id, query),
    ]);
    yield put(actions.bodiesReceived({ id, bodies: { mainData, countries, chat }, ranking }));
    return true;
  } catch (error) {
    if (is(error, 409)) return false;
    services.logError('Reading a replay failed', error);
    yield put(actions.problem(replayErrorText(error)));
    return true;
  }
}

/** One status answer: whether to stop polling (ready and read, failed, or gone). */
function* settle(services: Services, status: ReplayStatus): SagaIterator {
  yield put(actions.statusReceived(status));
  if (status.status === 'failed') {
    yield put(actions.problem(T.failed));
    return true;
  }
  if (status.status !== 'ready') return false;
  const shownId: string = yield select((state: RootState) => state.timeMachine.shownId);
  if (shownId !== status.id) return true;
  return yield call(loadBodies, services, status.id);
}

/** Polls a replay's status until it is ready (its bodies read if shown), failed, deleted, or too long. */
function* watchReplay(services: Services, id: string): SagaIterator {
  for (let polls = 0; polls < REPLAY_POLL_LIMIT; polls++) {
    if (!(yield select(replayOf(id)))) return;
    try {
      const status: ReplayStatus = yield call(services.api.replayStatus, id);
      if (yield call(settle, services, status)) return;
    } catch (error) {
      // Deleted meanwhile: nothing to say.
      if (!(yield select(replayOf(id)))) return;
      services.logError('Polling a replay failed', error);
      yield put(actions.problem(is(error, 404) ? T.gone : replayErrorText(error)));
      return;
    }
    yield delay(REPLAY_POLL_MS);
  }
  yield put(actions.problem(T.tooLong));
}

function* createReplay(services: Services, action: PayloadAction<MomentChoice>): SagaIterator {
  const startDate: string = yield select((state: RootState) => state.mainData.data.startDate);
  const built = replayRequestOf(action.payload, startDate, services.now());
  if ('error' in built) {
    yield put(actions.replayRefused(built.error));
    return;
  }
  try {
    const { id }: { id: string } = yield call(services.api.createReplay, built.request);
    // Until its first status, the replay reads as the moment asked for.
    const at = 'at' in built.request ? built.request.at : null;
    const position = 'position' in built.request ? built.request.position : null;
    const startedAt = new Date(services.now()).toISOString();
    yield put(actions.replayCreated({ id, status: 'running', progress: 0, at, position, events: 0, startedAt, error: null }));
    yield put(actions.watchRequested(id));
  } catch (error) {
    if (!is(error, 400) && !is(error, 429)) services.logError('Asking for a replay failed', error);
    yield put(actions.replayRefused(replayErrorText(error)));
  }
}

/** A replay picked from the list: a ready one is read (or polled while the server still says 409). */
function* showReplay(services: Services, action: PayloadAction<string>): SagaIterator {
  const replay: ReplayStatus | undefined = yield select(replayOf(action.payload));
  if (replay?.status !== 'ready') return;
  const loaded: boolean = yield call(loadBodies, services, replay.id);
  if (!loaded) yield put(actions.watchRequested(replay.id));
}

function* searchRanking(services: Services, action: PayloadAction<string>): SagaIterator {
  yield delay(SEARCH_DEBOUNCE_MS);
  const id: string = yield select((state: RootState) => state.timeMachine.shownId);
  if (!id) return;
  try {
    const page: Page<RankingEntry> = yield call(services.api.replayRanking, id, action.payload);
    yield put(actions.rankingReceived({ id, page }));
  } catch (error) {
    services.logError('Searching a replay ranking failed', error);
    yield put(actions.problem(replayErrorText(error)));
  }
}

function* compare(services: Services, action: PayloadAction<{ from: string; to: string }>): SagaIterator {
  try {
    const diff: ReplayDiff = yield call(services.api.replayDiff, action.payload.from, action.payload.to);
    yield put(actions.comparisonReceived(diff));
  } catch (error) {
    services.logError('Comparing replays failed', error);
    yield put(actions.comparisonRefused(replayErrorText(error)));
  }
}

function* deleteReplay(services: Services, action: PayloadAction<string>): SagaIterator {
  try {
    yield call(services.api.deleteReplay, action.payload);
    yield put(actions.replayDeleted(action.payload));
  } catch (error) {
    services.logError('Deleting a replay failed', error);
    yield put(actions.problem(replayErrorText(error)));
  }
}

/** The progress toward the goal as it stands now, read once each time the section shows. */
function* loadProgress(services: Services): SagaIterator {
  try {
    const view: ProgressView = yield call(services.api.progress);
    yield put(actions.progressReceived(view));
  } catch (error) {
    services.logError('Fetching the progress failed', error);
    yield put(actions.progressFailed());
  }
}

/** While the section is on screen: the progress, its requests, and one poll per running replay. */
function* onScreen(services: Services): SagaIterator {
  const watching = new Set<string>();
  yield fork(loadProgress, services);
  yield takeEvery(actions.watchRequested.type, function* (action: PayloadAction<string>) {
    if (watching.has(action.payload)) return;
    watching.add(action.payload);
    try {
      yield call(watchReplay, services, action.payload);
    } finally {
      watching.delete(action.payload);
    }
  });
  yield takeEvery(actions.replayRequested.type, createReplay, services);
  yield takeLatest(actions.replayShown.type, showReplay, services);
  yield takeLatest(actions.rankingQueried.type, searchRanking, services);
  yield takeLatest(actions.comparisonRequested.type, compare, services);
  yield takeEvery(actions.deleteRequested.type, deleteReplay, services);
  const replays: ReplayStatus[] = yield select((state: RootState) => state.timeMachine.replays);
  for (const replay of replays) if (replay.status === 'running') yield put(actions.watchRequested(replay.id));
}

/** The time machine's side effects run only while its section is on screen. */
export function* timeMachineSaga(services: Services): SagaIterator {
  for (;;) {
    yield take(actions.entered.type);
    yield race({ onScreen: call(onScreen, services), left: take(actions.left.type) });
  }
}
