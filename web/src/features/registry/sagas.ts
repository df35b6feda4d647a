import type { SagaIterator } from 'redux-saga';
import { call } from 'redux-saga/effects';
import type { RegistryRow } from '@pass/events/kernel';
import { listSaga } from '../../lib/list-saga';
import type { Services } from '../../lib/services';
import { registryActions } from './slice';

/** The participants filter, and the table's refresh on live main data. */
export function* registrySaga(services: Services): SagaIterator {
  yield call(listSaga<RegistryRow>, {
    what: 'the registry',
    requested: registryActions.registryRequested,
    fetch: (sv, query) => sv.api.registry(query),
    received: registryActions.registryReceived,
    select: (state) => state.users.registry,
  }, services);
}
