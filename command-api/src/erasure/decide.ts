import { type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/** Erasure is an event of its own (who asked, when); the store destroys the member's key once it is stored. */
export function decideEraseMember(command: CommandOf<'EraseMember'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const { userId, requestedBy, adminId } = command.data;
  return [{ type: 'MemberErased', data: { userId, requestedBy, ...(adminId ? { adminId } : {}), erasedAt: command.now.toISOString() } }];
}
