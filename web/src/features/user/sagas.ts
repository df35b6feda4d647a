import type { SagaIterator } from 'redux-saga';
import { call, delay, put, race, take, takeEvery, takeLatest } from 'redux-saga/effects';
import { TIMERS } from '@pass/events/kernel';
import type { RegisterSpecialUserResponse, RegisterUserResponse, UserView } from '@pass/events/kernel';
import { errorText } from '../../api/http';
import { STORAGE_KEYS, type Services } from '../../app/services';
import { updateMainDataActions } from '../site/updateMainDataSlice';
import { isPageEntered, isPageLeft } from '../ui/pageActions';
import { liveGlobalMemberRequested } from '../live/actions';
import { userActions } from './slice';

export const JOIN_US = 'Join us';

function* register(s: Services, action: ReturnType<typeof userActions.registerRequested>): SagaIterator {
  try {
    const answer: RegisterUserResponse = yield call(s.api.registerUser, action.payload);
    const { registered: _registered, ...user } = answer;
    s.storage.set(STORAGE_KEYS.userId, user.id);
    yield put(userActions.registerSucceeded(user));
    yield put(updateMainDataActions.updateMainDataSet(true));
    s.navigate('/content/check');
  } catch (error) {
    yield put(userActions.registerFailed(errorText(error)));
  }
}

function* claim(s: Services, action: ReturnType<typeof userActions.claimRequested>): SagaIterator {
  const { image, passes, ...fields } = action.payload;
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('image', image);
  form.append('passes', String(passes));
  try {
    const answer: RegisterSpecialUserResponse = yield call(s.api.registerSpecialUser, form);
    if (!answer.id || answer.id === '0') {
      yield put(userActions.claimFailed('The pass could not be claimed'));
      return;
    }
    yield put(userActions.claimSucceeded(answer.user));
    yield put(updateMainDataActions.updateMainDataSet(true));
    yield put(liveGlobalMemberRequested());
    s.navigate('/');
  } catch (error) {
    s.logError('Claiming the pass failed', error);
    yield put(userActions.claimFailed(errorText(error)));
  }
}

function* logout(s: Services): SagaIterator {
  try {
    yield call(s.api.logout);
  } catch (error) {
    s.logError('Logout failed', error);
  }
  s.storage.remove(STORAGE_KEYS.userId);
  yield put(userActions.userReset());
}

function* fetchUser(s: Services): SagaIterator {
  try {
    const user: UserView = yield call(s.api.me);
    yield put(userActions.userSet(user));
  } catch (error) {
    s.logError('Fetching the current user failed', error);
  }
}

/** "Join us" 3 s after opening the post form, unless the user left (spec §2 /content/post). */
function* joinToast(s: Services): SagaIterator {
  const { timer } = yield race({ timer: delay(TIMERS.joinToastMs), left: take(isPageLeft('post')) });
  if (timer !== undefined) s.toast.blank(JOIN_US);
}

export function* userSaga(s: Services): SagaIterator {
  yield takeLatest(userActions.registerRequested.type, register, s);
  yield takeLatest(userActions.claimRequested.type, claim, s);
  yield takeEvery(userActions.logoutRequested.type, logout, s);
  yield takeLatest(userActions.fetchUserRequested.type, fetchUser, s);
  yield takeLatest(isPageEntered('post'), joinToast, s);
}
