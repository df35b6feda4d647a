import { DomainError, POINTS_PER_CHAT_MESSAGE, canAffordChatMessage, chatNickname, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

/** A chat message costs a point, spent in the same event that records its text. */
export function decideSendChatMessage(command: CommandOf<'SendChatMessage'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const { messageId, message } = command.data;
  // A retry (same request id, so same message id): posted once, nothing to spend again.
  if (state.recentChatMessageIds.includes(messageId)) return [];
  if (!canAffordChatMessage(state.points)) {
    throw new DomainError('insufficient_points', 'You have no points left: get free points to keep chatting');
  }
  return [
    {
      type: 'ChatMessageSent',
      data: {
        userId: state.userId,
        messageId,
        nickname: chatNickname(state.certificate?.fullname),
        message,
        priority: state.priority,
        pointsSpent: POINTS_PER_CHAT_MESSAGE,
        sentAt: command.now.toISOString(),
      },
    },
  ];
}
