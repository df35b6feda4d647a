import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { PasswordResetConfirmForm } from '@pass/events/kernel';
import type { RootState } from '../../lib/store-types';

/** Where a refusal shows: beside the field the server names, or the form's own line. */
export type PasswordResetErrorPlace = 'email' | 'password' | 'form';

export interface PasswordResetState {
  pending: boolean;
  /** The e-mail form was sent: the same confirmation whatever the e-mail. */
  requested: boolean;
  /** The new password was set. */
  done: boolean;
  /** The mailed link is being checked: its form waits, so a dead link never shows it. */
  checking: boolean;
  /** The link is used, expired or forged: the member asks for a new one. */
  linkInvalid: boolean;
  /** The token the page was last opened with (null: not yet): the state above is that link's. */
  openedWith: string | null;
  errors: Partial<Record<PasswordResetErrorPlace, string>>;
}

declare module '../../lib/store-types' {
  interface RootState {
    passwordReset: PasswordResetState;
  }
}

const initialState: PasswordResetState = { pending: false, requested: false, done: false, checking: false, linkInvalid: false, openedWith: null, errors: {} };

const passwordResetSlice = createSlice({
  name: 'passwordReset',
  initialState,
  reducers: {
    /** The page opened (from the mailed link: with its token, checked at once): whatever an earlier visit left is gone. */
    opened(_state, action: PayloadAction<string>) {
      return { ...initialState, checking: action.payload !== '', openedWith: action.payload };
    },
    /** The link still sets a password, or its check failed for another reason (the confirmation will say). */
    linkChecked(state) {
      state.checking = false;
    },
    resetRequested(state, _action: PayloadAction<string>) {
      state.pending = true;
      state.errors = {};
    },
    resetRequestAccepted(state) {
      state.pending = false;
      state.requested = true;
    },
    confirmRequested(state, _action: PayloadAction<PasswordResetConfirmForm>) {
      state.pending = true;
      state.errors = {};
      state.linkInvalid = false;
    },
    confirmSucceeded(state) {
      state.pending = false;
      state.done = true;
    },
    failed(state, action: PayloadAction<{ place: PasswordResetErrorPlace; message: string; linkInvalid?: boolean }>) {
      state.pending = false;
      state.checking = false;
      state.errors[action.payload.place] = action.payload.message;
      if (action.payload.linkInvalid) state.linkInvalid = true;
    },
  },
});

export const passwordResetActions = passwordResetSlice.actions;
export const passwordResetReducer = passwordResetSlice.reducer;

export const selectPasswordReset = (state: RootState) => state.passwordReset;

/**
 * Whether the link `token` is still to be checked: being checked, or not yet asked about (the
 * first render, before the page's effect asks). The form waits meanwhile, so nothing typed into
 * it is lost when the check begins.
 */
export const selectLinkChecking = (state: RootState, token: string) => state.passwordReset.checking || state.passwordReset.openedWith !== token;
