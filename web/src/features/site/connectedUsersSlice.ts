import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

const connectedUsersSlice = createSlice({
  name: 'connectedUsers',
  initialState: { count: 0 },
  reducers: {
    connectedUsersReceived(state, action: PayloadAction<number>) {
      state.count = Math.max(0, action.payload);
    },
  },
});

export const connectedUsersActions = connectedUsersSlice.actions;
export default connectedUsersSlice.reducer;
