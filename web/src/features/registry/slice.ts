import { createSlice } from '@reduxjs/toolkit';
import type { RegistryRow } from '@pass/events/kernel';
import { emptyList, listQueried, listReceived, type ListState } from '../../lib/list';

declare module '../../lib/store-types' {
  interface UsersState {
    /** The participants registry table (GET /api/registry). */
    registry: ListState<RegistryRow>;
  }
}

const registrySlice = createSlice({
  name: 'users',
  initialState: emptyList<RegistryRow>(),
  reducers: {
    registryRequested: listQueried<RegistryRow>,
    registryReceived: listReceived<RegistryRow>,
  },
});

export const registryActions = registrySlice.actions;
export const registryReducer = registrySlice.reducer;
