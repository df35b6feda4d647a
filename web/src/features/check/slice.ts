import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { FreePointRequest } from '@pass/events/kernel';
import { FREE_POINT_COUNTDOWN_SECONDS } from '@pass/events/kernel';

/** Set at 1 s of the free-point countdown, cleared at 0 (spec §2 /content/check). */
const checkSlice = createSlice({
  name: 'check',
  initialState: { isChecked: false },
  reducers: {
    checkSet(state, action: PayloadAction<boolean>) {
      state.isChecked = action.payload;
    },
    /** Asks the live connection (or HTTP) for the free point, with the countdown's ad-view ticket. */
    freePointRequested(_state, _action: PayloadAction<FreePointRequest>) {},
  },
});

const checksecondsSlice = createSlice({
  name: 'checkseconds',
  initialState: { seconds: FREE_POINT_COUNTDOWN_SECONDS as number },
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
