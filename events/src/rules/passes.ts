/** Passes (docs/product.md §2 /content/amount, §9): what a pass costs and how many a member can claim. Browser-safe. */
import type { Priority } from '../domain-events';

export const POINTS_PER_PASS = 20;
/** Members' chat messages are highlighted after their first 10 passes (about text, docs/product.md §1). */
export const SPECIAL_USER_PASSES = 10;

/** Points `passes` passes cost. */
export function passesCost(passes: number): number {
  return passes * POINTS_PER_PASS;
}

/** Passes `points` points buy, ignoring supply. */
export function passesAffordable(points: number): number {
  return Math.max(0, Math.floor(points / POINTS_PER_PASS));
}

/** Largest number of passes a member can claim now: min(available, floor(points / 20)), never below 0. */
export function maxClaimablePasses(available: number, points: number): number {
  return Math.max(0, Math.min(available, passesAffordable(points)));
}

/** Priority after holding `passes`: the first pass makes a normal user, SPECIAL_USER_PASSES a special one. */
export function priorityFor(passes: number, current: Priority): Priority {
  if (passes >= SPECIAL_USER_PASSES) return 'specialUser';
  if (passes > 0 && current === '') return 'normalUser';
  return current;
}
