import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { AdminLoginRequest, AdminView, EditMainDataRequest } from '@pass/events/api';

export interface AdminState {
  id: string;
  email: string;
  authorized: boolean;
  /** The admin id kept in local storage: the spec's client-side admin flag. */
  storedId: string;
  error: string;
  pending: boolean;
}

const initialState: AdminState = { id: '', email: '', authorized: false, storedId: '', error: '', pending: false };

const adminSlice = createSlice({
  name: 'admin',
  initialState,
  reducers: {
    storedAdminLoaded(state, action: PayloadAction<string>) {
      state.storedId = action.payload;
    },
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
    deletePostRequested(_state, _action: PayloadAction<string>) {},
    deleteChatRequested() {},
    editMainDataRequested(_state, _action: PayloadAction<EditMainDataRequest>) {},
    resetViewsRequested(_state, _action: PayloadAction<number>) {},
  },
});

export const adminActions = adminSlice.actions;
export default adminSlice.reducer;
