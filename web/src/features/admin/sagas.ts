import type { SagaIterator } from 'redux-saga';
import { call, delay, fork, put, select, takeEvery, takeLatest } from 'redux-saga/effects';
import type { AdminPostEntry, AdminView, FailedImageJobs, Page, PointHistoryEntry, ProjectionStatus } from '@pass/events/kernel';
import type { PayloadAction } from '@reduxjs/toolkit';
import { contentPath } from '@pass/events/kernel';
import { errorText } from '../../lib/http';
import { SEARCH_DEBOUNCE_MS } from '../../lib/list';
import { STORAGE_KEYS, type Services } from '../../lib/services';
import { popupActions } from '../../lib/state/popup';
import { updateMainDataActions } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';
import { adminActions } from './slice';

export const ADMIN_TEXTS = {
  unauthorized: 'Credenciales inválidas',
  postDeleted: 'Publicación eliminada',
  chatDeleted: 'Mensajes del chat eliminados',
  mainDataSaved: 'Datos principales actualizados',
  viewsSaved: 'Vistas de anuncios actualizadas',
  failed: 'No se pudo completar la acción',
  rebuildStarted: 'Reconstrucción iniciada',
  memberErased: 'Miembro borrado',
} as const;

function* login(s: Services, action: ReturnType<typeof adminActions.loginRequested>): SagaIterator {
  try {
    const admin: AdminView = yield call(s.api.adminLogin, action.payload);
    if (!admin.authorized) {
      yield put(adminActions.loginFailed(ADMIN_TEXTS.unauthorized));
      return;
    }
    s.storage.set(STORAGE_KEYS.adminId, admin.id);
    yield put(adminActions.adminSet(admin));
    yield put(popupActions.showAdsSet(false));
    s.navigate(contentPath('admin/dashboard'), { replace: true });
  } catch (error) {
    yield put(adminActions.loginFailed(errorText(error) || ADMIN_TEXTS.unauthorized));
  }
}

/** On start, the admin whose id is stored (spec §6: the stored flag, checked by the server). */
function* verifyStoredAdmin(s: Services, adminId: string): SagaIterator {
  try {
    const admin: AdminView = yield call(s.api.verifyAdmin, adminId);
    if (!admin.authorized) s.storage.remove(STORAGE_KEYS.adminId);
    yield put(adminActions.adminSet(admin));
    // Admins never get the ads popup.
    yield put(popupActions.showAdsSet(!admin.authorized));
  } catch (error) {
    s.logError('Verifying the admin failed', error);
  }
}

function* logout(s: Services): SagaIterator {
  try {
    yield call(s.api.adminLogout);
  } catch (error) {
    s.logError('Admin logout failed', error);
  }
  s.storage.remove(STORAGE_KEYS.adminId);
  yield put(adminActions.adminReset());
  yield put(popupActions.showAdsSet(true));
  s.navigate(contentPath('admin'), { replace: true });
}

/** Runs an admin call, then tells the admin how it went (in Spanish, like the dashboard). */
function* adminCall(s: Services, run: () => Promise<unknown>, done: string): SagaIterator {
  try {
    yield call(run);
    s.toast.success(done);
    return true;
  } catch (error) {
    s.logError('Admin action failed', error);
    s.toast.error(`${ADMIN_TEXTS.failed}: ${errorText(error)}`);
    return false;
  }
}

function* searchPosts(s: Services, action: PayloadAction<string>): SagaIterator {
  yield delay(SEARCH_DEBOUNCE_MS);
  try {
    const page: Page<AdminPostEntry> = yield call(s.api.adminPosts, action.payload);
    yield put(adminActions.postsReceived(page));
  } catch (error) {
    s.logError('Fetching the posts failed', error);
  }
}

function* loadHistory(s: Services, action: PayloadAction<string>): SagaIterator {
  try {
    const entries: PointHistoryEntry[] = yield call(s.api.memberHistory, action.payload);
    yield put(adminActions.historyReceived(entries));
  } catch (error) {
    s.logError('Fetching the history failed', error);
    s.toast.error(`${ADMIN_TEXTS.failed}: ${errorText(error)}`);
    yield put(adminActions.historyClosed());
  }
}

/** While a rebuild runs, the status is polled so the admin sees its progress. */
export const PROJECTIONS_POLL_MS = 2_000;

function* loadProjections(s: Services): SagaIterator {
  try {
    const status: ProjectionStatus = yield call(s.api.projections);
    yield put(adminActions.projectionsReceived(status));
    if (status.rebuild.state === 'running' || status.rebuild.state === 'switching') {
      yield delay(PROJECTIONS_POLL_MS);
      yield put(adminActions.projectionsRequested());
    }
  } catch (error) {
    s.logError('Fetching the projections failed', error);
  }
}

function* loadImageJobs(s: Services): SagaIterator {
  try {
    const failures: FailedImageJobs = yield call(s.api.imageJobFailures);
    yield put(adminActions.imageJobsReceived(failures));
  } catch (error) {
    s.logError('Fetching the failed image jobs failed', error);
  }
}

export function* adminSaga(s: Services): SagaIterator {
  // Local storage was read into the initial state (app/store.ts).
  const adminId: string = yield select((st: RootState) => st.admin.storedId);
  yield takeLatest(adminActions.projectionsRequested.type, loadProjections, s);
  yield takeLatest(adminActions.imageJobsRequested.type, loadImageJobs, s);
  yield takeEvery(adminActions.rebuildRequested.type, function* () {
    const ok: boolean = yield call(adminCall, s, () => s.api.rebuildProjections(), ADMIN_TEXTS.rebuildStarted);
    if (ok) yield put(adminActions.projectionsRequested());
  });
  yield takeLatest(adminActions.postsRequested.type, searchPosts, s);
  yield takeLatest(adminActions.historyRequested.type, loadHistory, s);
  yield takeLatest(adminActions.loginRequested.type, login, s);
  yield takeEvery(adminActions.logoutRequested.type, logout, s);
  yield takeEvery(adminActions.deletePostRequested.type, function* (action: ReturnType<typeof adminActions.deletePostRequested>) {
    const ok: boolean = yield call(adminCall, s, () => s.api.deleteMemberPost(action.payload), ADMIN_TEXTS.postDeleted);
    if (!ok) return;
    const query: string = yield select((st: RootState) => st.admin.posts.query);
    yield put(adminActions.postsRequested(query));
    yield put(updateMainDataActions.updateMainDataSet(true));
  });
  yield takeEvery(adminActions.eraseMemberRequested.type, function* (action: ReturnType<typeof adminActions.eraseMemberRequested>) {
    const ok: boolean = yield call(adminCall, s, () => s.api.eraseMember(action.payload), ADMIN_TEXTS.memberErased);
    if (!ok) return;
    yield put(adminActions.memberErased(action.payload));
    yield put(updateMainDataActions.updateMainDataSet(true));
  });
  yield takeEvery(adminActions.deleteChatRequested.type, function* () {
    yield call(adminCall, s, () => s.api.deleteChatMessages(), ADMIN_TEXTS.chatDeleted);
  });
  yield takeEvery(adminActions.editMainDataRequested.type, function* (action: ReturnType<typeof adminActions.editMainDataRequested>) {
    const ok: boolean = yield call(adminCall, s, () => s.api.editMainData(action.payload), ADMIN_TEXTS.mainDataSaved);
    if (ok) yield put(updateMainDataActions.updateMainDataSet(true));
  });
  yield takeEvery(adminActions.resetViewsRequested.type, function* (action: ReturnType<typeof adminActions.resetViewsRequested>) {
    const ok: boolean = yield call(adminCall, s, () => s.api.resetAdsViews(action.payload), ADMIN_TEXTS.viewsSaved);
    if (ok) yield put(updateMainDataActions.updateMainDataSet(true));
  });
  if (adminId) yield fork(verifyStoredAdmin, s, adminId);
}
