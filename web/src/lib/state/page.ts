import { createAction } from '@reduxjs/toolkit';

/** Pages whose timers run in sagas: the page dispatches these on mount and unmount. */
export type TimedPage = 'home' | 'post' | 'check';

export const pageEntered = createAction<TimedPage>('page/entered');
export const pageLeft = createAction<TimedPage>('page/left');

export const isPageEntered = (page: TimedPage) => (action: unknown) =>
  pageEntered.match(action as never) && (action as ReturnType<typeof pageEntered>).payload === page;
export const isPageLeft = (page: TimedPage) => (action: unknown) =>
  pageLeft.match(action as never) && (action as ReturnType<typeof pageLeft>).payload === page;
