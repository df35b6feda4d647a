import { DomainError, type UserState } from '@pass/events';

// The state and its fold live in the kernel (events/src/rules/member-state.ts), so the admin's
// story of a member folds the very same; the aggregate's guards stay here with its decide steps.
export { RETRY_WINDOW_MESSAGES, initialUserState, type Certificate, type UserState } from '@pass/events';

/** Every member command but registration needs a registered member. */
export function requireRegistered(state: UserState): void {
  if (!state.exists) throw new DomainError('not_found', 'This member does not exist');
}
