import type { ProgressDay, ProgressView } from '@pass/events/kernel';
import { progressRows, type ProgressRow } from '../../lib/progress-series';
import type { RootState } from '../../lib/store-types';
import { summaryText } from './texts';

/** What the page shows: the days oldest first, through today, and the sentence above them. */
export interface ProgressSeries {
  rows: ProgressRow[];
  summary: string;
}

/**
 * The series the page draws and lists: GET /api/progress's days with the live days laid over
 * them, through today, each with the goal's pace (lib/progress-series.ts), and its summary.
 */
export function progressSeries(view: ProgressView, live: readonly ProgressDay[], now: number): ProgressSeries {
  const { rows, today } = progressRows(view, live, now);
  return { rows, summary: summaryText(today) };
}

/** The first request failed: nothing to show yet. */
export const selectProgressFailed = (state: RootState) => state.progress.failed && state.progress.view === null;
