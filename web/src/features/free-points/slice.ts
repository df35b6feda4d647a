import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { FreePointRequest } from '@pass/events/kernel';
import { FREE_POINT_COUNTDOWN_SECONDS } from '@pass/events/kernel';

export interface CheckState {
  isChecked: boolean;
}
export interface CheckSecondsState {
  seconds: number;
}

declare module '../../lib/store-types' {
  interface RootState {
    check: CheckState;
    checkseconds: CheckSecondsState;
  }
}

/** Set at 1 s of the free-point countdown, cleared at 0 (docs/product.md §2 /content/check). */
const checkSlice = createSlice({
  name: 'check',
  initialState: { isChecked: false } as CheckState,
  reducers: {
    checkSet(state, action: PayloadAction<boolean>) {
      state.isChecked = action.payload;
    },
    /** Asks for the free point (over the live connection, else HTTP) with the countdown's ad-view ticket. */
    freePointRequested(_state, _action: PayloadAction<FreePointRequest>) {},
  },
});

const checksecondsSlice = createSlice({
  name: 'checkseconds',
  initialState: { seconds: FREE_POINT_COUNTDOWN_SECONDS } as CheckSecondsState,
  reducers: {
    secondsTicked(state) {
      state.seconds = Math.max(0, state.seconds - 1);
    },
    secondsReset(state) {
      state.seconds = FREE_POINT_COUNTDOWN_SECONDS;
    },
  },
});

export const checkActions = checkSlice.actions;
export const checksecondsActions = checksecondsSlice.actions;
export const checkReducer = checkSlice.reducer;
export const checksecondsReducer = checksecondsSlice.reducer;
