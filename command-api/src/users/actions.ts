import { randomUUID } from 'node:crypto';
import {
  chatMessageSchema,
  streams,
  type AdViewTicketResponse,
  type CommandContext,
  type FreePointResponse,
  type Principal,
  type SendChatMessageResponse,
  type UserView,
} from '@pass/events';
import { DomainError } from '../kernel/domain-error';
import type { CommandServices } from '../kernel/services';
import { tooManyActionsMessage, type ThrottledAction } from '../sessions/rate-limiter';
import { userDecider } from './decider';
import { toUserView } from './view';

/** Member actions shared by the HTTP routes and the Socket.IO gateway, so both apply the same rules. */

/** 429 (with Retry-After) when the member or their address is over the action's burst limit. */
async function throttle(s: CommandServices, action: ThrottledAction, user: Principal, clientAddress: string | undefined): Promise<void> {
  const wait = await s.actions.attempt(action, user.id, clientAddress);
  if (wait > 0) throw new DomainError('too_soon', tooManyActionsMessage(action, wait), { retryAfterSeconds: wait });
}

/** The ticket for the countdown that starts now (on the business clock the award is decided on). */
export function issueAdViewTicket(s: CommandServices, user: Principal, ctx: CommandContext): AdViewTicketResponse {
  return s.adViews.issue(user.id, ctx.now);
}

export const NO_AD_VIEW = 'Watch the free-point countdown on the free points page to earn a point';

export async function awardFreePoint(
  s: CommandServices,
  user: Principal,
  request: unknown,
  ctx: CommandContext,
  clientAddress?: string,
): Promise<FreePointResponse> {
  await throttle(s, 'freePoint', user, clientAddress);
  const ticket = (request as { ticket?: unknown } | null | undefined)?.ticket;
  const adViewStartedAt = s.adViews.startedAt(user.id, ticket);
  if (!adViewStartedAt) throw new DomainError('invalid', NO_AD_VIEW, { fields: { ticket: NO_AD_VIEW } });
  const { state } = await s.handler.handle(
    userDecider,
    streams.user(user.id),
    { type: 'AwardFreePoint', data: { userId: user.id, adViewStartedAt }, now: ctx.now },
    ctx,
  );
  return { user: toUserView(state) };
}

export async function sendChatMessage(
  s: CommandServices,
  user: Principal,
  draft: unknown,
  ctx: CommandContext,
  clientAddress?: string,
): Promise<SendChatMessageResponse> {
  const { message } = chatMessageSchema.parse(draft);
  await throttle(s, 'chat', user, clientAddress);
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
