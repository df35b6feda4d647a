import type { SagaIterator } from 'redux-saga';
import { all, call, spawn } from 'redux-saga/effects';
import type { FeatureSaga, Services } from '../lib/services';
import type { LiveSocket } from '../lib/socket';
import { adminSaga } from '../features/admin';
import { adsSagas } from '../features/ads';
import { chatSaga } from '../features/chat';
import { freePointsSaga } from '../features/free-points';
import { joinSaga } from '../features/join';
import { myDataSaga } from '../features/my-data';
import { passwordResetSaga } from '../features/password-reset';
import { passClaimSaga } from '../features/pass-claim';
import { purchaseSaga } from '../features/points-purchase';
import { progressSaga } from '../features/progress';
import { rankingSaga } from '../features/ranking';
import { registrySaga } from '../features/registry';
import { pageFrameSagas } from '../features/page-frame';

/** One failing watcher must not take the others down: each is spawned and logged if it dies. */
function* isolated(saga: FeatureSaga, services: Services, live: LiveSocket): SagaIterator {
  try {
    yield call(saga, services, live);
  } catch (error) {
    services.logError(`Saga ${saga.name} stopped`, error);
  }
}

export function* rootSaga(services: Services): SagaIterator {
  // One live connection for the whole app: the page frame runs it, chat and free points send over it.
  const live = services.createSocket();
  const sagas: FeatureSaga[] = [
    ...pageFrameSagas,
    joinSaga,
    chatSaga,
    freePointsSaga,
    ...adsSagas,
    passClaimSaga,
    rankingSaga,
    registrySaga,
    purchaseSaga,
    adminSaga,
    myDataSaga,
    passwordResetSaga,
    progressSaga,
  ];
  yield all(sagas.map((saga) => spawn(isolated, saga, services, live)));
}
