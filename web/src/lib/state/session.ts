import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { UserView, RegisterUserRequest } from '@pass/events/kernel';
import type { SessionEndReason } from '../join-reason';

// Who is using the site (docs/product.md §4, §6): the member (the spec's `user` slice, which every
// capability reads) and the admin flag. Join registers and logs out, pass claim claims, the
// live connection, free points, chat and purchases replace the user the server answers.

export const guestUser: UserView = {
  id: '',
  email: '',
  priority: '',
  chatCount: 0,
  downloads: 0,
  fullname: '',
  country: '',
  link: '',
  image: null,
  message: '',
  passes: 0,
  buyed: 0,
  createdAt: '',
  updatedAt: '',
};

export interface ClaimRequest {
  fullname: string;
  country: string;
  email: string;
  link: string;
  message: string;
  image: File;
  passes: number;
}

export interface SessionState {
  user: UserView;
  /** The id kept in local storage: a user is expected even before the fetch answers (docs/product.md §2 guards). */
  storedId: string;
  registerError: string;
  claimError: string;
  pending: boolean;
  /** Set after a successful pass claim (docs/product.md §4). */
  newMember: boolean;
  /**
   * Why the session just ended ('' when it did not): the join page says it, whichever page sent
   * the member there (a member-only page's own redirect may come first).
   */
  endedReason: SessionEndReason | '';
  /**
   * A mailed link's new password being set on this device, for this member id ('' when none):
   * the server then ends the member's sessions, this one too, and its live notice of that is no
   * news to this page, which says it itself.
   */
  resettingHere: string;
}

const initialState: SessionState = {
  user: guestUser,
  storedId: '',
  registerError: '',
  claimError: '',
  pending: false,
  newMember: false,
  endedReason: '',
  resettingHere: '',
};

/** The new password being set here is for the member signed in here: it ends this session too. */
export function resetEndsThisSession(state: SessionState): boolean {
  return state.resettingHere !== '' && state.resettingHere === (state.user.id || state.storedId);
}

const userSlice = createSlice({
  name: 'user',
  initialState,
  reducers: {
    userSet(state, action: PayloadAction<UserView>) {
      state.user = action.payload;
    },
    userReset(state) {
      state.user = guestUser;
      state.storedId = '';
    },
    /** The session ended (signed out everywhere, the account deleted, or from elsewhere): a guest, with the reason to say. */
    sessionEnded(state, action: PayloadAction<SessionEndReason>) {
      state.user = guestUser;
      state.storedId = '';
      state.endedReason = action.payload;
    },
    /** A mailed link's new password is being set here, for member `userId`. */
    resetHereStarted(state, action: PayloadAction<string>) {
      state.resettingHere = action.payload;
    },
    /**
     * It was set (`done`) or refused. Set for the member signed in here, it ended this session
     * too: a guest, with nothing more to say than the reset page does.
     */
    resetHereEnded(state, action: PayloadAction<{ done: boolean }>) {
      if (action.payload.done && resetEndsThisSession(state)) {
        state.user = guestUser;
        state.storedId = '';
      }
      state.resettingHere = '';
    },
    /** The join page has taken the reason to say. */
    endedReasonShown(state) {
      state.endedReason = '';
    },
    registerRequested(state, _action: PayloadAction<RegisterUserRequest>) {
      state.pending = true;
      state.registerError = '';
    },
    registerSucceeded(state, action: PayloadAction<UserView>) {
      state.pending = false;
      state.endedReason = '';
      state.user = action.payload;
      state.storedId = action.payload.id;
    },
    registerFailed(state, action: PayloadAction<string>) {
      state.pending = false;
      state.registerError = action.payload;
    },
    claimRequested(state, _action: PayloadAction<ClaimRequest>) {
      state.pending = true;
      state.claimError = '';
    },
    claimSucceeded(state, action: PayloadAction<UserView>) {
      state.pending = false;
      state.user = action.payload;
      state.newMember = true;
    },
    claimFailed(state, action: PayloadAction<string>) {
      state.pending = false;
      state.claimError = action.payload;
    },
    logoutRequested() {},
  },
});

export const userActions = userSlice.actions;
export const sessionReducer = userSlice.reducer;
