import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** The live `connectedUsers` count the floating bar's viewers badge shows. */
export interface ConnectedUsersState {
  count: number;
}

declare module '../../lib/store-types' {
  interface RootState {
    connectedUsers: ConnectedUsersState;
  }
}

const connectedUsersSlice = createSlice({
  name: 'connectedUsers',
  initialState: { count: 0 } as ConnectedUsersState,
  reducers: {
    connectedUsersReceived(state, action: PayloadAction<number>) {
      state.count = Math.max(0, action.payload);
    },
  },
});

export const connectedUsersActions = connectedUsersSlice.actions;
export const connectedUsersReducer = connectedUsersSlice.reducer;
