import { createAction, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ChatHistory, CountriesView, MainDataView, UpdatedMainDataPayload } from '@pass/events/kernel';

// The site's public figures (docs/product.md §1, §3 main data) that most screens show, the flag that asks
// for them again (after a registration, claim, purchase or admin edit) and the loading overlay
// (shown at start until they arrive, and while a purchase is registered). The page frame loads
// them; any capability may ask for a refresh.

/**
 * The chat's history (features/chat owns the list): it also carries the message total since the
 * last clear, which the floating bar shows, so main data takes the total from the same action.
 */
export const chatHistoryReceived = createAction<ChatHistory>('chat/chatHistoryReceived');

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
    builder.addCase(chatHistoryReceived, (state, action) => {
      state.data.globalMessages = action.payload.total;
    });
  },
});

export const mainDataActions = mainDataSlice.actions;
export const mainDataReducer = mainDataSlice.reducer;

export interface UpdateMainDataState {
  updateMainData: boolean;
}

/** A flag asking for main data to be refreshed (after a registration, claim or purchase). */
const updateMainDataSlice = createSlice({
  name: 'updateMainData',
  initialState: { updateMainData: false } as UpdateMainDataState,
  reducers: {
    updateMainDataSet(state, action: PayloadAction<boolean>) {
      state.updateMainData = action.payload;
    },
  },
});

export const updateMainDataActions = updateMainDataSlice.actions;
export const updateMainDataReducer = updateMainDataSlice.reducer;

export interface LoadingState {
  isLoading: boolean;
}

/** The full-screen loading overlay: shown at start until main data arrives, and during a purchase. */
const loadingSlice = createSlice({
  name: 'loading',
  initialState: { isLoading: true } as LoadingState,
  reducers: {
    loadingSet(state, action: PayloadAction<boolean>) {
      state.isLoading = action.payload;
    },
  },
});

export const loadingActions = loadingSlice.actions;
export const loadingReducer = loadingSlice.reducer;
