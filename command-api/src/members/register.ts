import { DomainError, NEW_USER_POINTS, type CommandOf, type UserEvent } from '@pass/events';
import type { UserState } from './state';

/** A new member starts with the spec's points and no priority; once per member id. */
export function decideRegisterUser(command: CommandOf<'RegisterUser'>, state: UserState): UserEvent[] {
  if (state.exists) throw new DomainError('already_exists', 'This member is already registered');
  if (state.erased) throw new DomainError('conflict', 'This member was erased');
  const { userId, email, passwordHash } = command.data;
  return [{ type: 'UserRegistered', data: { userId, email, passwordHash, points: NEW_USER_POINTS, priority: '', registeredAt: command.now.toISOString() } }];
}
