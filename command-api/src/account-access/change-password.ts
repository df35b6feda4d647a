import type { CommandOf, UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/**
 * A member sets a new password. The route has checked the current one (argon2 runs off the
 * decider, which stays pure); every reset link asked for before it stops working (evolve).
 */
export function decideChangePassword(command: CommandOf<'ChangePassword'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const { userId, passwordHash } = command.data;
  return [{ type: 'PasswordChanged', data: { userId, passwordHash, via: 'change', changedAt: command.now.toISOString() } }];
}
