import type { SagaIterator } from 'redux-saga';
import { delay } from 'redux-saga/effects';
import { TIMERS } from '@pass/events/kernel';
import type { Services } from './services';

export const NETWORK_LOST = 'Network connection lost';

/**
 * docs/product.md §8: an ad that should have loaded did not (the /content countdown at 19, the ads popup at
 * 0): the toast, then after 1 s a full page load of the product's home.
 */
export function* networkLost(services: Services): SagaIterator {
  services.toast.error(NETWORK_LOST);
  yield delay(TIMERS.redirectAfterLostConnectionMs);
  services.redirectHome();
}
