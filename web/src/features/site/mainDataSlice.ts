import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { chatActions } from '../chat/slice';
import type { CountriesView, MainDataView, UpdatedMainDataPayload } from '@pass/events/kernel';

export interface MainDataState {
  data: MainDataView;
  countries: CountriesView;
  /** True once main data has arrived at least once (the loading overlay waits for it). */
  loaded: boolean;
}

const initialState: MainDataState = {
  data: {
    available: 0,
    sold: 0,
    views: 0,
    cpm: 0,
    donations: 0,
    startDate: '',
    purchasesUsd: 0,
    fundsRaised: 0,
    members: 0,
    globalMessages: 0,
  },
  countries: { distinct: 0, top: [] },
  loaded: false,
};

const mainDataSlice = createSlice({
  name: 'mainData',
  initialState,
  reducers: {
    mainDataReceived(state, action: PayloadAction<MainDataView>) {
      state.data = action.payload;
      state.loaded = true;
    },
    countriesReceived(state, action: PayloadAction<CountriesView>) {
      state.countries = action.payload;
    },
    /** The live `updatedMainData` event carries both. */
    updatedMainDataReceived(state, action: PayloadAction<UpdatedMainDataPayload>) {
      state.data = action.payload.mainData;
      state.countries = action.payload.countries;
      state.loaded = true;
    },
    globalMessagesCounted(state, action: PayloadAction<number>) {
      state.data.globalMessages = action.payload;
    },
  },
  extraReducers: (builder) => {
    // The history carries the total since the last clear (also sent after the admin clears the chat).
    builder.addCase(chatActions.chatHistoryReceived, (state, action) => {
      state.data.globalMessages = action.payload.total;
    });
  },
});

export const mainDataActions = mainDataSlice.actions;
export default mainDataSlice.reducer;
