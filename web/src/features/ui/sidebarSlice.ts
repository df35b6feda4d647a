import { createSlice } from '@reduxjs/toolkit';

const sidebarSlice = createSlice({
  name: 'sidebar',
  initialState: { sidebarStatus: false },
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
export default sidebarSlice.reducer;
