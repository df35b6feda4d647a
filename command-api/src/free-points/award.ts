import { DomainError, FREE_POINT_POINTS, adViewProblem, assertNever, type AdViewProblem, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/**
 * One point for a countdown watched to the end (docs/product.md §2 /content/check), at most one every 30 s:
 * the kernel's `adViewProblem` says why a ticket cannot earn now; this says it to the member.
 */
export function decideAwardFreePoint(command: CommandOf<'AwardFreePoint'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const problem = adViewProblem(command.data.adViewStartedAt, command.now, state.lastFreePointAt);
  if (problem) throw refusalOf(problem);
  return [{ type: 'FreePointAwarded', data: { userId: state.userId, points: FREE_POINT_POINTS, awardedAt: command.now.toISOString() } }];
}

function refusalOf(problem: AdViewProblem): DomainError {
  switch (problem.kind) {
    case 'too_early':
      return new DomainError('too_soon', `Watch the countdown to the end: your point is ready in ${problem.waitSeconds} seconds`, {
        retryAfterSeconds: problem.waitSeconds,
      });
    case 'expired':
      return new DomainError('invalid', 'This free-point countdown has expired: open the free points page again');
    case 'used':
      return new DomainError('conflict', 'This countdown already earned its point: open the free points page again');
    case 'interval':
      return new DomainError('too_soon', `Your next free point is ready in ${problem.waitSeconds} seconds`, { retryAfterSeconds: problem.waitSeconds });
    default:
      return assertNever(problem);
  }
}
