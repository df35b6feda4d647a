import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** The full-screen loading overlay: shown at start until main data arrives, and during a purchase. */
const loadingSlice = createSlice({
  name: 'loading',
  initialState: { isLoading: true },
  reducers: {
    loadingSet(state, action: PayloadAction<boolean>) {
      state.isLoading = action.payload;
    },
  },
});

export const loadingActions = loadingSlice.actions;
export default loadingSlice.reducer;
