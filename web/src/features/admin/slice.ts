import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { AdminLoginRequest, AdminPostEntry, AdminView, EditMainDataRequest, FailedImageJobs, MemberStoryEntry, Page, ProjectionStatus } from '@pass/events/kernel';

export interface AdminState {
  id: string;
  email: string;
  authorized: boolean;
  /** The admin id kept in local storage: the spec's client-side admin flag. */
  storedId: string;
  error: string;
  pending: boolean;
  /** The dashboard's post search (GET /api/admin/posts). */
  posts: { items: AdminPostEntry[]; total: number; query: string; loaded: boolean };
  /**
   * The story of one member, opened from a post: each event with the state after it. `step` is
   * the entry whose card and balances are shown (the newest when it opens).
   */
  history: { userId: string; entries: MemberStoryEntry[]; loading: boolean; step: number };
  /** Read-model health for ops (GET /api/admin/projections). */
  projections: ProjectionStatus | null;
  /** Image jobs that failed every attempt, for ops (GET /api/admin/image-jobs). */
  imageJobs: FailedImageJobs | null;
  /** Members erased from this dashboard: their rows say so. */
  erased: string[];
}

declare module '../../lib/store-types' {
  interface RootState {
    admin: AdminState;
  }
}

const initialState: AdminState = {
  id: '',
  email: '',
  authorized: false,
  storedId: '',
  error: '',
  pending: false,
  posts: { items: [], total: 0, query: '', loaded: false },
  history: { userId: '', entries: [], loading: false, step: 0 },
  projections: null,
  imageJobs: null,
  erased: [],
};

const adminSlice = createSlice({
  name: 'admin',
  initialState,
  reducers: {
    adminSet(state, action: PayloadAction<AdminView>) {
      state.id = action.payload.id;
      state.email = action.payload.email;
      state.authorized = action.payload.authorized;
      state.storedId = action.payload.authorized ? action.payload.id : '';
      state.pending = false;
      state.error = '';
    },
    adminReset() {
      return initialState;
    },
    loginRequested(state, _action: PayloadAction<AdminLoginRequest>) {
      state.pending = true;
      state.error = '';
    },
    loginFailed(state, action: PayloadAction<string>) {
      state.pending = false;
      state.error = action.payload;
    },
    logoutRequested() {},
    postsRequested(state, action: PayloadAction<string>) {
      state.posts.query = action.payload;
    },
    postsReceived(state, action: PayloadAction<Page<AdminPostEntry>>) {
      state.posts.items = action.payload.items;
      state.posts.total = action.payload.total;
      state.posts.loaded = true;
    },
    historyRequested(state, action: PayloadAction<string>) {
      state.history = { userId: action.payload, entries: [], loading: true, step: 0 };
    },
    historyReceived(state, action: PayloadAction<MemberStoryEntry[]>) {
      state.history.entries = action.payload;
      state.history.loading = false;
      state.history.step = Math.max(0, action.payload.length - 1);
    },
    /** The admin steps to another entry of the story (held within it). */
    historyStepped(state, action: PayloadAction<number>) {
      state.history.step = Math.min(Math.max(0, action.payload), Math.max(0, state.history.entries.length - 1));
    },
    projectionsRequested() {},
    projectionsReceived(state, action: PayloadAction<ProjectionStatus>) {
      state.projections = action.payload;
    },
    rebuildRequested() {},
    imageJobsRequested() {},
    imageJobsReceived(state, action: PayloadAction<FailedImageJobs>) {
      state.imageJobs = action.payload;
    },
    historyClosed(state) {
      state.history = initialState.history;
    },
    deletePostRequested(_state, _action: PayloadAction<string>) {},
    deleteChatRequested() {},
    eraseMemberRequested(_state, _action: PayloadAction<string>) {},
    memberErased(state, action: PayloadAction<string>) {
      if (!state.erased.includes(action.payload)) state.erased.push(action.payload);
    },
    editMainDataRequested(_state, _action: PayloadAction<EditMainDataRequest>) {},
    resetViewsRequested(_state, _action: PayloadAction<number>) {},
    /** A dashboard form was not sent: its fields say why. */
    formRefused() {},
  },
});

export const adminActions = adminSlice.actions;
export const adminReducer = adminSlice.reducer;
