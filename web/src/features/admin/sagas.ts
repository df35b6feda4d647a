import type { SagaIterator } from 'redux-saga';
import { call, delay, fork, put, select, takeEvery, takeLatest } from 'redux-saga/effects';
import type { AdminPostEntry, AdminView, FailedImageJobs, MemberStoryEntry, Page, ProjectionStatus } from '@pass/events/kernel';
import type { PayloadAction } from '@reduxjs/toolkit';
import { contentPath } from '@pass/events/kernel';
import { HttpError } from '../../lib/http';
import { SEARCH_DEBOUNCE_MS } from '../../lib/list';
import { STORAGE_KEYS, type Services } from '../../lib/services';
import { popupActions } from '../../lib/state/popup';
import { updateMainDataActions } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';
import { adminActions } from './slice';
import { timeMachineSaga } from './time-machine/replays-sagas';

export const ADMIN_TEXTS = {
  unauthorized: 'Credenciales inválidas',
  postDeleted: 'Publicación eliminada',
  chatDeleted: 'Mensajes del chat eliminados',
  mainDataSaved: 'Datos principales actualizados',
  viewsSaved: 'Vistas de anuncios actualizadas',
  failed: 'No se pudo completar la acción',
  rebuildStarted: 'Reconstrucción iniciada',
  memberErased: 'Miembro borrado',
  /** A network failure, or an answer with no text of its own. */
  noAnswer: 'El servidor no respondió',
  status: (status: number) => `Error ${status} del servidor`,
} as const;

/**
 * Every outcome of a dashboard action shows under this one toast id, so the newest replaces the
 * one before (a success never stays beside a later refusal).
 */
export const ADMIN_OUTCOME_TOAST = 'admin-outcome';

/** The server's own words (its admin answers are Spanish, ADMIN_MESSAGES), else a Spanish stand-in. */
export function adminErrorText(error: unknown): string {
  if (error instanceof HttpError) return error.body.error || ADMIN_TEXTS.status(error.status);
  return ADMIN_TEXTS.noAnswer;
}

function* login(services: Services, action: ReturnType<typeof adminActions.loginRequested>): SagaIterator {
  try {
    const admin: AdminView = yield call(services.api.adminLogin, action.payload);
    if (!admin.authorized) {
      yield put(adminActions.loginFailed(ADMIN_TEXTS.unauthorized));
      return;
    }
    services.storage.set(STORAGE_KEYS.adminId, admin.id);
    yield put(adminActions.adminSet(admin));
    yield put(popupActions.showAdsSet(false));
    services.navigate(contentPath('admin/dashboard'), { replace: true });
  } catch (error) {
    yield put(adminActions.loginFailed(adminErrorText(error)));
  }
}

/** On start, the admin whose id is stored (docs/product.md §6: the stored flag, checked by the server). */
function* verifyStoredAdmin(services: Services, adminId: string): SagaIterator {
  try {
    const admin: AdminView = yield call(services.api.verifyAdmin, adminId);
    if (!admin.authorized) services.storage.remove(STORAGE_KEYS.adminId);
    yield put(adminActions.adminSet(admin));
    // Admins never get the ads popup.
    yield put(popupActions.showAdsSet(!admin.authorized));
  } catch (error) {
    services.logError('Verifying the admin failed', error);
  }
}

function* logout(services: Services): SagaIterator {
  try {
    yield call(services.api.adminLogout);
  } catch (error) {
    services.logError('Admin logout failed', error);
  }
  services.storage.remove(STORAGE_KEYS.adminId);
  yield put(adminActions.adminReset());
  yield put(popupActions.showAdsSet(true));
  services.navigate(contentPath('admin'), { replace: true });
}

/** Runs an admin call, then tells the admin how it went (in Spanish, like the dashboard). */
function* adminCall(services: Services, run: () => Promise<unknown>, done: string): SagaIterator {
  try {
    yield call(run);
    services.toast.success(done, { id: ADMIN_OUTCOME_TOAST });
    return true;
  } catch (error) {
    services.logError('Admin action failed', error);
    services.toast.error(`${ADMIN_TEXTS.failed}: ${adminErrorText(error)}`, { id: ADMIN_OUTCOME_TOAST });
    return false;
  }
}

function* searchPosts(services: Services, action: PayloadAction<string>): SagaIterator {
  yield delay(SEARCH_DEBOUNCE_MS);
  try {
    const page: Page<AdminPostEntry> = yield call(services.api.adminPosts, action.payload);
    yield put(adminActions.postsReceived(page));
  } catch (error) {
    services.logError('Fetching the posts failed', error);
  }
}

function* loadHistory(services: Services, action: PayloadAction<string>): SagaIterator {
  try {
    const entries: MemberStoryEntry[] = yield call(services.api.memberHistory, action.payload);
    yield put(adminActions.historyReceived(entries));
  } catch (error) {
    services.logError('Fetching the history failed', error);
    services.toast.error(`${ADMIN_TEXTS.failed}: ${adminErrorText(error)}`, { id: ADMIN_OUTCOME_TOAST });
    yield put(adminActions.historyClosed());
  }
}

/** While a rebuild runs, the status is polled so the admin sees its progress. */
export const PROJECTIONS_POLL_MS = 2_000;

function* loadProjections(services: Services): SagaIterator {
  try {
    const status: ProjectionStatus = yield call(services.api.projections);
    yield put(adminActions.projectionsReceived(status));
    if (status.rebuild.state === 'running' || status.rebuild.state === 'switching') {
      yield delay(PROJECTIONS_POLL_MS);
      yield put(adminActions.projectionsRequested());
    }
  } catch (error) {
    services.logError('Fetching the projections failed', error);
  }
}

function* loadImageJobs(services: Services): SagaIterator {
  try {
    const failures: FailedImageJobs = yield call(services.api.imageJobFailures);
    yield put(adminActions.imageJobsReceived(failures));
  } catch (error) {
    services.logError('Fetching the failed image jobs failed', error);
  }
}

export function* adminSaga(services: Services): SagaIterator {
  // Local storage was read into the initial state (app/store.ts).
  const adminId: string = yield select((state: RootState) => state.admin.storedId);
  yield takeLatest(adminActions.projectionsRequested.type, loadProjections, services);
  yield takeLatest(adminActions.imageJobsRequested.type, loadImageJobs, services);
  yield takeEvery(adminActions.rebuildRequested.type, function* () {
    const ok: boolean = yield call(adminCall, services, () => services.api.rebuildProjections(), ADMIN_TEXTS.rebuildStarted);
    if (ok) yield put(adminActions.projectionsRequested());
  });
  yield takeLatest(adminActions.postsRequested.type, searchPosts, services);
  yield takeLatest(adminActions.historyRequested.type, loadHistory, services);
  yield takeLatest(adminActions.loginRequested.type, login, services);
  yield takeEvery(adminActions.logoutRequested.type, logout, services);
  yield takeEvery(adminActions.deletePostRequested.type, function* (action: ReturnType<typeof adminActions.deletePostRequested>) {
    const ok: boolean = yield call(adminCall, services, () => services.api.deleteMemberPost(action.payload), ADMIN_TEXTS.postDeleted);
    if (!ok) return;
    const query: string = yield select((state: RootState) => state.admin.posts.query);
    yield put(adminActions.postsRequested(query));
    yield put(updateMainDataActions.updateMainDataSet(true));
  });
  yield takeEvery(adminActions.eraseMemberRequested.type, function* (action: ReturnType<typeof adminActions.eraseMemberRequested>) {
    const ok: boolean = yield call(adminCall, services, () => services.api.eraseMember(action.payload), ADMIN_TEXTS.memberErased);
    if (!ok) return;
    yield put(adminActions.memberErased(action.payload));
    // The erased member leaves the posts and their count.
    const query: string = yield select((state: RootState) => state.admin.posts.query);
    yield put(adminActions.postsRequested(query));
    yield put(updateMainDataActions.updateMainDataSet(true));
  });
  yield takeEvery(adminActions.deleteChatRequested.type, function* () {
    yield call(adminCall, services, () => services.api.deleteChatMessages(), ADMIN_TEXTS.chatDeleted);
  });
  yield takeEvery(adminActions.editMainDataRequested.type, function* (action: ReturnType<typeof adminActions.editMainDataRequested>) {
    const ok: boolean = yield call(adminCall, services, () => services.api.editMainData(action.payload), ADMIN_TEXTS.mainDataSaved);
    if (ok) yield put(updateMainDataActions.updateMainDataSet(true));
  });
  yield takeEvery(adminActions.resetViewsRequested.type, function* (action: ReturnType<typeof adminActions.resetViewsRequested>) {
    const ok: boolean = yield call(adminCall, services, () => services.api.resetAdsViews(action.payload), ADMIN_TEXTS.viewsSaved);
    if (ok) yield put(updateMainDataActions.updateMainDataSet(true));
  });
  // A form the dashboard refused is the newest outcome: the previous action's toast goes.
  yield takeEvery(adminActions.formRefused.type, function* () {
    yield call(services.toast.dismiss, ADMIN_OUTCOME_TOAST);
  });
  yield fork(timeMachineSaga, services);
  if (adminId) yield fork(verifyStoredAdmin, services, adminId);
}
