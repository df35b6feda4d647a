import type { SagaIterator } from 'redux-saga';
import { call, delay, put, race, take, takeLatest } from 'redux-saga/effects';
import { TIMERS, contentPath } from '@pass/events/kernel';
import type { RegisterSpecialUserResponse } from '@pass/events/kernel';
import { errorText, HttpError } from '../../lib/http';
import type { Services } from '../../lib/services';
import { liveGlobalMemberRequested } from '../../lib/state/live';
import { isPageEntered, isPageLeft } from '../../lib/state/page';
import { userActions } from '../../lib/state/session';
import { updateMainDataActions } from '../../lib/state/site';
import { postFieldErrors, rememberSentPostForm, type PostFormReturn } from './post-form-return';

export const JOIN_US = 'Join us';

/** docs/product.md §4 pass claim: the post form's fields, image and passes as multipart; a nonzero id means success. */
function* claim(services: Services, action: ReturnType<typeof userActions.claimRequested>): SagaIterator {
  const { image, passes, ...fields } = action.payload;
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('image', image);
  form.append('passes', String(passes));
  try {
    const answer: RegisterSpecialUserResponse = yield call(services.api.registerSpecialUser, form);
    if (!answer.id || answer.id === '0') {
      yield put(userActions.claimFailed('The pass could not be claimed'));
      return;
    }
    yield put(userActions.claimSucceeded(answer.user));
    // Sent: Back no longer reopens the form as it was before.
    rememberSentPostForm(null);
    yield put(updateMainDataActions.updateMainDataSet(true));
    yield put(liveGlobalMemberRequested());
    services.navigate('/');
  } catch (error) {
    services.logError('Claiming the pass failed', error);
    // A refused field of the post form (the image above all) is shown beside that field.
    const errors = error instanceof HttpError ? postFieldErrors(error.body.fields) : null;
    if (errors) {
      yield put(userActions.claimFailed(''));
      const state: PostFormReturn = { returned: { fields, errors } };
      services.navigate(contentPath('post'), { replace: true, state });
      return;
    }
    yield put(userActions.claimFailed(errorText(error)));
  }
}

/** "Join us" 3 s after opening the post form, unless the user left (docs/product.md §2 /content/post). */
function* joinToast(services: Services): SagaIterator {
  const { timer } = yield race({ timer: delay(TIMERS.joinToastMs), left: take(isPageLeft('post')) });
  if (timer !== undefined) services.toast.blank(JOIN_US);
}

export function* passClaimSaga(services: Services): SagaIterator {
  yield takeLatest(userActions.claimRequested.type, claim, services);
  yield takeLatest(isPageEntered('post'), joinToast, services);
}
