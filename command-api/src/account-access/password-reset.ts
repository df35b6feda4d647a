import { ACCOUNT_ACCESS_MESSAGES, DomainError, PASSWORD_RESET_TTL_MS, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/**
 * Whether a signed reset link made at `issuedAt` still sets the member's password at `now`: the
 * member exists, the link is under an hour old, and no password was set since it was made (so
 * using it ends it, and a change ends every link made before). A change in the link's own
 * millisecond counts as after it. A link dated after `now` (another instance's clock ahead) waits.
 */
export function resetLinkHolds(state: UserState, issuedAt: Date, now: Date): boolean {
  const made = issuedAt.getTime();
  if (!state.exists || made > now.getTime() || made + PASSWORD_RESET_TTL_MS <= now.getTime()) return false;
  return state.passwordChangedAt === null || Date.parse(state.passwordChangedAt) < made;
}

/**
 * A new password through a reset link: only a link made since the last password change (so each
 * works once) and before its expiry. A used, expired or forged link is one refusal.
 */
export function decideResetPassword(command: CommandOf<'ResetPassword'>, state: UserState): UserEvent[] {
  const { userId, tokenHash, passwordHash, issuedAt } = command.data;
  if (!resetLinkHolds(state, new Date(issuedAt), command.now)) throw new DomainError('invalid', ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid);
  requireRegistered(state);
  return [{ type: 'PasswordChanged', data: { userId, passwordHash, via: 'reset', tokenHash, changedAt: command.now.toISOString() } }];
}
