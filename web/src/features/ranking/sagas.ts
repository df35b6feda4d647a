import type { SagaIterator } from 'redux-saga';
import { call } from 'redux-saga/effects';
import type { RankingEntry } from '@pass/events/kernel';
import { listSaga } from '../../lib/list-saga';
import type { Services } from '../../lib/services';
import { rankingActions } from './slice';

/** The sponsors' search, and its refresh on live main data. */
export function* rankingSaga(services: Services): SagaIterator {
  yield call(listSaga<RankingEntry>, {
    what: 'the ranking',
    requested: rankingActions.rankingRequested,
    fetch: (sv, query) => sv.api.ranking(query),
    received: rankingActions.rankingReceived,
    select: (state) => state.users.ranking,
  }, services);
}
