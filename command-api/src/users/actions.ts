import { randomUUID } from 'node:crypto';
import {
  chatMessageSchema,
  streams,
  type CommandContext,
  type FreePointResponse,
  type Principal,
  type SendChatMessageResponse,
  type UserView,
} from '@pass/events';
import { DomainError } from '../kernel/domain-error';
import type { CommandServices } from '../kernel/services';
import { userDecider } from './decider';
import { toUserView } from './view';

/** Member actions shared by the HTTP routes and the Socket.IO gateway, so both apply the same rules. */

export async function awardFreePoint(s: CommandServices, user: Principal, ctx: CommandContext): Promise<FreePointResponse> {
  const { state } = await s.handler.handle(userDecider, streams.user(user.id), { type: 'AwardFreePoint', data: { userId: user.id }, now: ctx.now }, ctx);
  return { user: toUserView(state) };
}

export async function sendChatMessage(s: CommandServices, user: Principal, draft: unknown, ctx: CommandContext): Promise<SendChatMessageResponse> {
  const { message } = chatMessageSchema.parse(draft);
  const messageId = randomUUID();
  const { state, events } = await s.handler.handle(
    userDecider,
    streams.user(user.id),
    { type: 'SendChatMessage', data: { userId: user.id, messageId, message }, now: ctx.now },
    ctx,
  );
  const sent = events.find((e) => e.type === 'ChatMessageSent');
  if (sent?.type !== 'ChatMessageSent') throw new Error('The chat message was not recorded');
  const d = sent.data;
  return {
    message: { id: d.messageId, userId: d.userId, nickname: d.nickname, message: d.message, priority: d.priority, sentAt: d.sentAt },
    user: toUserView(state),
  };
}

export async function currentUser(s: CommandServices, user: Principal): Promise<UserView> {
  const { state } = await s.handler.load(userDecider, streams.user(user.id));
  if (!state.exists) throw new DomainError('not_found', 'This member does not exist');
  return toUserView(state);
}
