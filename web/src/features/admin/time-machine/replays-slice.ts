import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ChatHistory, CountriesView, MainDataView, Page, ProgressView, RankingEntry, ReplayDiff, ReplayStatus } from '@pass/events/kernel';
import { emptyList, listQueried, listReceived, type ListState } from '../../../lib/list';
import type { MomentChoice } from './moment';

/** A ready replay's bodies, as the public routes give them at its moment. */
export interface ReplayBodies {
  mainData: MainDataView;
  countries: CountriesView;
  chat: ChatHistory;
}

export interface TimeMachineState {
  /** The replays this dashboard asked for, newest first, as their last status said. */
  replays: ReplayStatus[];
  creating: boolean;
  /** The last problem, in Spanish; '' when none. */
  error: string;
  /** The replay on screen, and its bodies once it is ready and they are read. */
  shownId: string;
  shown: ReplayBodies | null;
  /** The shown replay's ranking, searched on the server like the public one. */
  ranking: ListState<RankingEntry>;
  comparison: { from: string; to: string; loading: boolean; diff: ReplayDiff | null; error: string };
  /** GET /api/progress as read when the section last showed (no live days: a snapshot is enough here). */
  progress: { view: ProgressView | null; failed: boolean };
}

declare module '../../../lib/store-types' {
  interface RootState {
    timeMachine: TimeMachineState;
  }
}

const initialState: TimeMachineState = {
  replays: [],
  creating: false,
  error: '',
  shownId: '',
  shown: null,
  ranking: emptyList(),
  comparison: { from: '', to: '', loading: false, diff: null, error: '' },
  progress: { view: null, failed: false },
};

function show(state: TimeMachineState, id: string) {
  state.shownId = id;
  state.shown = null;
  state.ranking = emptyList();
}

const timeMachineSlice = createSlice({
  name: 'timeMachine',
  initialState,
  reducers: {
    /** The section is on screen: the replays still running are polled again. */
    entered() {},
    /** The section left the screen: every poll stops. */
    left() {},
    replayRequested(state, _action: PayloadAction<MomentChoice>) {
      state.creating = true;
      state.error = '';
    },
    replayRefused(state, action: PayloadAction<string>) {
      state.creating = false;
      state.error = action.payload;
    },
    replayCreated(state, action: PayloadAction<ReplayStatus>) {
      state.creating = false;
      state.replays.unshift(action.payload);
      show(state, action.payload.id);
    },
    /** Poll this replay's status until it is ready or failed (again, after a long wait). */
    watchRequested(_state, _action: PayloadAction<string>) {},
    statusReceived(state, action: PayloadAction<ReplayStatus>) {
      const at = state.replays.findIndex((r) => r.id === action.payload.id);
      if (at >= 0) state.replays[at] = action.payload;
    },
    problem(state, action: PayloadAction<string>) {
      state.error = action.payload;
    },
    replayShown(state, action: PayloadAction<string>) {
      show(state, action.payload);
      state.error = '';
    },
    bodiesReceived(state, action: PayloadAction<{ id: string; bodies: ReplayBodies; ranking: Page<RankingEntry> }>) {
      if (action.payload.id !== state.shownId) return;
      state.shown = action.payload.bodies;
      listReceived(state.ranking, { type: '', payload: action.payload.ranking });
    },
    rankingQueried(state, action: PayloadAction<string>) {
      listQueried(state.ranking, action);
    },
    rankingReceived(state, action: PayloadAction<{ id: string; page: Page<RankingEntry> }>) {
      if (action.payload.id === state.shownId) listReceived(state.ranking, { type: '', payload: action.payload.page });
    },
    deleteRequested(_state, _action: PayloadAction<string>) {},
    replayDeleted(state, action: PayloadAction<string>) {
      state.replays = state.replays.filter((r) => r.id !== action.payload);
      if (state.shownId === action.payload) show(state, '');
    },
    comparisonRequested(state, action: PayloadAction<{ from: string; to: string }>) {
      state.comparison = { ...action.payload, loading: true, diff: null, error: '' };
    },
    comparisonReceived(state, action: PayloadAction<ReplayDiff>) {
      state.comparison.loading = false;
      state.comparison.diff = action.payload;
    },
    comparisonRefused(state, action: PayloadAction<string>) {
      state.comparison.loading = false;
      state.comparison.error = action.payload;
    },
    progressReceived(state, action: PayloadAction<ProgressView>) {
      state.progress = { view: action.payload, failed: false };
    },
    progressFailed(state) {
      state.progress.failed = true;
    },
  },
});

export const timeMachineActions = timeMachineSlice.actions;
export const timeMachineReducer = timeMachineSlice.reducer;
