import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Page, RankingEntry, RegistryRow } from '@pass/events/kernel';

export interface ListState<T> {
  items: T[];
  total: number;
  query: string;
  loaded: boolean;
}

export interface UsersState {
  /** Members ranked by passes: the sponsors section and the admin's posts. */
  ranking: ListState<RankingEntry>;
  /** The participants registry table. */
  registry: ListState<RegistryRow>;
}

const emptyList = <T>(): ListState<T> => ({ items: [], total: 0, query: '', loaded: false });

const initialState: UsersState = { ranking: emptyList(), registry: emptyList() };

const usersSlice = createSlice({
  name: 'users',
  initialState,
  reducers: {
    rankingRequested(state, action: PayloadAction<string>) {
      state.ranking.query = action.payload;
    },
    rankingReceived(state, action: PayloadAction<Page<RankingEntry>>) {
      state.ranking.items = action.payload.items;
      state.ranking.total = action.payload.total;
      state.ranking.loaded = true;
    },
    registryRequested(state, action: PayloadAction<string>) {
      state.registry.query = action.payload;
    },
    registryReceived(state, action: PayloadAction<Page<RegistryRow>>) {
      state.registry.items = action.payload.items;
      state.registry.total = action.payload.total;
      state.registry.loaded = true;
    },
  },
});

export const usersActions = usersSlice.actions;
export default usersSlice.reducer;
