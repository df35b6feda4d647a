import { ADMIN_MESSAGES, DomainError, type CommandOf, type UserEvent } from '@pass/events';
import type { UserState } from '../members/state';

/** The admin removes a member's card from the site (the member keeps their passes). */
export function decideDeleteMemberPost(command: CommandOf<'DeleteMemberPost'>, state: UserState): UserEvent[] {
  // The admin's own refusals, in the dashboard's language.
  if (!state.exists) throw new DomainError('not_found', ADMIN_MESSAGES.noSuchMember);
  if (!state.certificate) throw new DomainError('not_found', ADMIN_MESSAGES.noPost);
  return [{ type: 'MemberPostDeleted', data: { userId: state.userId, deletedBy: command.data.deletedBy, deletedAt: command.now.toISOString() } }];
}
