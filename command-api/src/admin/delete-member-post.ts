import { DomainError, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/** The admin removes a member's card from the site (the member keeps their passes). */
export function decideDeleteMemberPost(command: CommandOf<'DeleteMemberPost'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  if (!state.certificate) throw new DomainError('not_found', 'This member has no post');
  return [{ type: 'MemberPostDeleted', data: { userId: state.userId, deletedBy: command.data.deletedBy, deletedAt: command.now.toISOString() } }];
}
