import type { Dispatch, UnknownAction } from '@reduxjs/toolkit';
import type { PopupState } from './state/popup';
import type { SessionState } from './state/session';
import type { LoadingState, MainDataState, UpdateMainDataState } from './state/site';

/**
 * The store's state, one key per slice of docs/product.md §3. The slices several capabilities share are
 * declared here (they live in lib/state); each feature adds the slices it owns with a
 * `declare module '../../lib/store-types'` block next to its reducer, so a feature types its
 * selectors and sagas without importing app/ or another feature. app/store.ts checks that the
 * reducers it combines give exactly this type.
 */
export interface RootState {
  user: SessionState;
  mainData: MainDataState;
  popup: PopupState;
  loading: LoadingState;
  updateMainData: UpdateMainDataState;
  /** The member lists; the ranking and the registry each add theirs to UsersState. */
  users: UsersState;
}

/** `users.ranking` (features/ranking) and `users.registry` (features/registry). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface UsersState {}

/** The store's dispatch: plain actions only (no thunks; side effects live in sagas). */
export type AppDispatch = Dispatch<UnknownAction>;
