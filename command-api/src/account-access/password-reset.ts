import { ACCOUNT_ACCESS_MESSAGES, DomainError, PASSWORD_RESET_TTL_MS, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/** A reset link mailed to the member: only its secret's hash is recorded, with its expiry. */
export function decideRequestPasswordReset(command: CommandOf<'RequestPasswordReset'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const { userId, tokenHash } = command.data;
  const expiresAt = new Date(command.now.getTime() + PASSWORD_RESET_TTL_MS).toISOString();
  return [{ type: 'PasswordResetRequested', data: { userId, tokenHash, expiresAt, requestedAt: command.now.toISOString() } }];
}

/**
 * A new password through a reset link: only a link asked for since the last password change
 * (so each works once) and before its expiry. A used, expired or forged link is one refusal.
 */
export function decideResetPassword(command: CommandOf<'ResetPassword'>, state: UserState): UserEvent[] {
  const { userId, tokenHash, passwordHash } = command.data;
  const expiresAt = state.exists ? state.pendingResets.get(tokenHash) : undefined;
  if (expiresAt === undefined || Date.parse(expiresAt) <= command.now.getTime()) throw new DomainError('invalid', ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid);
  requireRegistered(state);
  return [{ type: 'PasswordChanged', data: { userId, passwordHash, via: 'reset', tokenHash, changedAt: command.now.toISOString() } }];
}
