import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ProgressDay, ProgressView } from '@pass/events/kernel';

export interface ProgressState {
  /** GET /api/progress as last answered; null until then. */
  view: ProgressView | null;
  /**
   * The days the live `progress` event brought since the last request, one per date, oldest
   * first: the selectors lay them over the answer's days (replacing that date, or appending it).
   */
  live: ProgressDay[];
  loading: boolean;
  /** The last request failed (the page says so; a reconnect asks again). */
  failed: boolean;
}

declare module '../../lib/store-types' {
  interface RootState {
    progress: ProgressState;
  }
}

const initialState: ProgressState = { view: null, live: [], loading: false, failed: false };

const progressSlice = createSlice({
  name: 'progress',
  initialState,
  reducers: {
    // Days pushed before this request may be older than its answer: only later ones are laid over it.
    progressRequested(state) {
      state.loading = true;
      state.failed = false;
      state.live = [];
    },
    progressReceived(state, action: PayloadAction<ProgressView>) {
      state.view = action.payload;
      state.loading = false;
    },
    progressFailed(state) {
      state.loading = false;
      state.failed = true;
    },
    progressDayReceived(state, action: PayloadAction<ProgressDay>) {
      const day = action.payload;
      const at = state.live.findIndex((known) => known.date >= day.date);
      if (at < 0) state.live.push(day);
      else if (state.live[at]!.date === day.date) state.live[at] = day;
      else state.live.splice(at, 0, day);
    },
  },
});

export const progressActions = progressSlice.actions;
export const progressReducer = progressSlice.reducer;
