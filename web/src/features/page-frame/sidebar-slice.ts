import { createSlice } from '@reduxjs/toolkit';

export interface SidebarState {
  sidebarStatus: boolean;
}

declare module '../../lib/store-types' {
  interface RootState {
    sidebar: SidebarState;
  }
}

const sidebarSlice = createSlice({
  name: 'sidebar',
  initialState: { sidebarStatus: false } as SidebarState,
  reducers: {
    sidebarToggled(state) {
      state.sidebarStatus = !state.sidebarStatus;
    },
    sidebarClosed(state) {
      state.sidebarStatus = false;
    },
  },
});

export const sidebarActions = sidebarSlice.actions;
export const sidebarReducer = sidebarSlice.reducer;
