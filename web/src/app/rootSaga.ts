import type { SagaIterator } from 'redux-saga';
import { all, call, spawn } from 'redux-saga/effects';
import type { Services } from './services';
import { siteSaga } from '../features/site/sagas';
import { userSaga } from '../features/user/sagas';
import { socketSaga } from '../features/live/socketSaga';
import { checkSaga } from '../features/check/sagas';
import { adBlockSaga, adsPopupSaga, cookieSaga } from '../features/ads/sagas';
import { globalPostSaga } from '../features/globalPost/sagas';
import { purchaseSaga } from '../features/passes/purchaseSaga';
import { adminSaga } from '../features/admin/sagas';

type Saga = (s: Services) => SagaIterator;

/** One failing watcher must not take the others down: each is spawned and logged if it dies. */
function* isolated(saga: Saga, s: Services): SagaIterator {
  try {
    yield call(saga, s);
  } catch (error) {
    s.logError(`Saga ${saga.name} stopped`, error);
  }
}

export function* rootSaga(s: Services): SagaIterator {
  const sagas: Saga[] = [
    siteSaga,
    userSaga,
    socketSaga,
    checkSaga,
    cookieSaga,
    adBlockSaga,
    adsPopupSaga,
    globalPostSaga,
    purchaseSaga,
    adminSaga,
  ];
  yield all(sagas.map((saga) => spawn(isolated, saga, s)));
}
