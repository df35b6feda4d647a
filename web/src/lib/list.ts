import type { PayloadAction } from '@reduxjs/toolkit';
import type { Page } from '@pass/events/kernel';

/** A server-searched list (the ranking, the registry): the query typed and the page it answered. */
export interface ListState<T> {
  items: T[];
  total: number;
  query: string;
  loaded: boolean;
}

export const emptyList = <T>(): ListState<T> => ({ items: [], total: 0, query: '', loaded: false });

/** Case reducers of such a list: the query is kept as typed, the page replaces the items. */
export function listQueried<T>(state: ListState<T>, action: PayloadAction<string>) {
  state.query = action.payload;
}
export function listReceived<T>(state: ListState<T>, action: PayloadAction<Page<T>>) {
  state.items = action.payload.items;
  state.total = action.payload.total;
  state.loaded = true;
}

/** Typing in a search box asks the server once the user pauses. */
export const SEARCH_DEBOUNCE_MS = 250;
