import { formatNumber } from '../../lib/format';
import { goalShare, type ProgressToday } from '../../lib/progress-series';

/** The progress page's words (docs/product.md §2 /content/progress). */
export const T = {
  title: 'Progress',
  intro: 'Passes taken each day against the pace that reaches the goal in time.',
  loading: 'Loading the progress…',
  failed: 'The progress could not be loaded. It loads again once the connection is back.',
  chartLabel: 'Chart of passes taken per day against the goal’s pace. The table below lists the same figures.',
  passesLine: 'Passes taken',
  paceLine: 'Pace',
  tableLabel: 'Progress by day',
  columns: ['Date', 'Passes taken', 'Pace', 'Members', 'Funds raised', 'Free points', 'Points bought', 'Chat messages'],
} as const;

/** A share of the goal in percent, rounded down to a tenth, so it never reads 100% early (nor 0% once started). */
export function percentText(part: number, whole: number): string {
  const share = goalShare(part, whole);
  return share.under ? 'under 0.1%' : `${share.percent}%`;
}

/**
 * "Day 12 of 365: 1,234 passes taken, 0.1% of the goal of 1,000,000. The pace needs 35,617 by
 * the end of today." Without a start date there is no day and no pace to compare with.
 */
export function summaryText({ day, goal, passesTaken, paceToday }: ProgressToday): string {
  const taken = `${formatNumber(passesTaken)} ${passesTaken === 1 ? 'pass' : 'passes'} taken, ${percentText(passesTaken, goal.passes)} of the goal of ${formatNumber(goal.passes)}.`;
  if (paceToday === null) return `${taken} The count of ${formatNumber(goal.days)} days starts once the start date is set.`;
  return `Day ${formatNumber(day)} of ${formatNumber(goal.days)}: ${taken} The pace needs ${formatNumber(paceToday)} by the end of today.`;
}
