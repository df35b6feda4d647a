import type { SagaIterator } from 'redux-saga';
import { delay, put, takeLatest } from 'redux-saga/effects';
import { TIMERS } from '@pass/events/kernel';
import { globalPostActions } from './slice';

/** The new-member popup hides 10 s after the newest post arrives; a newer post restarts it. */
function* hideLater(action: ReturnType<typeof globalPostActions.globalPostReceived>): SagaIterator {
  if (!action.payload) return;
  yield delay(TIMERS.newMemberPopupMs);
  yield put(globalPostActions.globalPostHidden());
}

export function* globalPostSaga(): SagaIterator {
  yield takeLatest(globalPostActions.globalPostReceived.type, hideLater);
}
