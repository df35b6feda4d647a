import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ChangePasswordForm } from '@pass/events/kernel';
import type { RootState } from '../../lib/store-types';

/** The four actions of "Your data". */
export type MyDataAction = 'download' | 'changePassword' | 'logoutEverywhere' | 'deleteAccount';

/**
 * Where a refusal shows: beside a field (`currentPassword`, `newPassword`, the deletion's
 * `password`) or in its section's line (the action's name).
 */
export type MyDataErrorPlace = MyDataAction | 'currentPassword' | 'newPassword' | 'password';

export interface MyDataState {
  /** The action waiting for the server, if any. */
  pending: MyDataAction | null;
  errors: Partial<Record<MyDataErrorPlace, string>>;
  /** The password was changed (until the next change starts). */
  passwordChanged: boolean;
  /** The deletion's confirmation dialog is open. */
  confirmingDelete: boolean;
}

declare module '../../lib/store-types' {
  interface RootState {
    myData: MyDataState;
  }
}

const initialState: MyDataState = { pending: null, errors: {}, passwordChanged: false, confirmingDelete: false };

const myDataSlice = createSlice({
  name: 'myData',
  initialState,
  reducers: {
    downloadRequested(state) {
      state.pending = 'download';
      state.errors = {};
    },
    changePasswordRequested(state, _action: PayloadAction<ChangePasswordForm>) {
      state.pending = 'changePassword';
      state.errors = {};
      state.passwordChanged = false;
    },
    logoutEverywhereRequested(state) {
      state.pending = 'logoutEverywhere';
      state.errors = {};
    },
    deleteDialogOpened(state) {
      state.confirmingDelete = true;
      state.errors = {};
    },
    deleteDialogClosed(state) {
      state.confirmingDelete = false;
      delete state.errors.password;
      delete state.errors.deleteAccount;
    },
    deleteAccountRequested(state, _action: PayloadAction<string>) {
      state.pending = 'deleteAccount';
      state.errors = {};
    },
    succeeded(state, action: PayloadAction<MyDataAction>) {
      state.pending = null;
      if (action.payload === 'changePassword') state.passwordChanged = true;
      if (action.payload === 'deleteAccount') state.confirmingDelete = false;
    },
    failed(state, action: PayloadAction<{ place: MyDataErrorPlace; message: string }>) {
      state.pending = null;
      state.errors[action.payload.place] = action.payload.message;
    },
    /** The session ended (signed out everywhere, account deleted, or the server said 401). */
    reset() {
      return initialState;
    },
  },
});

export const myDataActions = myDataSlice.actions;
export const myDataReducer = myDataSlice.reducer;

export const selectMyData = (state: RootState) => state.myData;
