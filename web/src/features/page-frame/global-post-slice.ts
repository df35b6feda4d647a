import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { GlobalPostView } from '@pass/events/kernel';

/** The new-member popup: the newest global post (docs/product.md §2). */
export interface GlobalPostState {
  visible: boolean;
  newGlobalMember: GlobalPostView | null;
}

declare module '../../lib/store-types' {
  interface RootState {
    globalPost: GlobalPostState;
  }
}

const initialState: GlobalPostState = { visible: false, newGlobalMember: null };

const globalPostSlice = createSlice({
  name: 'globalPost',
  initialState,
  reducers: {
    globalPostReceived(state, action: PayloadAction<GlobalPostView | null>) {
      state.newGlobalMember = action.payload;
      state.visible = action.payload !== null;
    },
    globalPostHidden(state) {
      state.visible = false;
    },
  },
});

export const globalPostActions = globalPostSlice.actions;
export const globalPostReducer = globalPostSlice.reducer;
