import { createSlice } from '@reduxjs/toolkit';
import type { RankingEntry } from '@pass/events/kernel';
import { emptyList, listQueried, listReceived, type ListState } from '../../lib/list';

declare module '../../lib/store-types' {
  interface UsersState {
    /** Members ranked by passes: the sponsors section (GET /api/ranking). */
    ranking: ListState<RankingEntry>;
  }
}

const rankingSlice = createSlice({
  name: 'users',
  initialState: emptyList<RankingEntry>(),
  reducers: {
    rankingRequested: listQueried<RankingEntry>,
    rankingReceived: listReceived<RankingEntry>,
  },
});

export const rankingActions = rankingSlice.actions;
export const rankingReducer = rankingSlice.reducer;
