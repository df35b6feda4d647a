import type { PayloadAction, UnknownAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, delay, put, select, takeLatest } from 'redux-saga/effects';
import type { Page } from '@pass/events/kernel';
import { SEARCH_DEBOUNCE_MS, type ListState } from './list';
import type { Services } from './services';
import { mainDataActions } from './state/site';
import type { RootState } from './store-types';

/** Live main data refreshes the lists on screen, at most once per burst of member changes. */
export const LIVE_LIST_REFRESH_MS = 500;

export interface ListSearch<T> {
  /** Named in the log when the server fails: "Fetching {what} failed". */
  what: string;
  /** The search box's action (payload: the query). */
  requested: { type: string };
  fetch(services: Services, query: string): Promise<Page<T>>;
  received(page: Page<T>): UnknownAction;
  select(state: RootState): ListState<T>;
}

/**
 * A searched list's saga: typing asks the server once the user pauses; live main data (docs/product.md §4:
 * "update the user list") asks again for the list already shown, with its query.
 */
export function* listSaga<T>(list: ListSearch<T>, services: Services): SagaIterator {
  function* load(query: string): SagaIterator {
    try {
      const page: Page<T> = yield call(list.fetch, services, query);
      yield put(list.received(page));
    } catch (error) {
      services.logError(`Fetching ${list.what} failed`, error);
    }
  }
  yield takeLatest(list.requested.type, function* (action: PayloadAction<string>) {
    yield delay(SEARCH_DEBOUNCE_MS);
    yield call(load, action.payload);
  });
  yield takeLatest(mainDataActions.updatedMainDataReceived.type, function* () {
    const shown: ListState<T> = yield select(list.select);
    yield delay(LIVE_LIST_REFRESH_MS);
    if (shown.loaded) yield call(load, shown.query);
  });
}
