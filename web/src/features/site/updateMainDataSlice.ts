import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** A flag asking for main data to be refreshed (after a registration, claim or purchase). */
const updateMainDataSlice = createSlice({
  name: 'updateMainData',
  initialState: { updateMainData: false },
  reducers: {
    updateMainDataSet(state, action: PayloadAction<boolean>) {
      state.updateMainData = action.payload;
    },
  },
});

export const updateMainDataActions = updateMainDataSlice.actions;
export default updateMainDataSlice.reducer;
