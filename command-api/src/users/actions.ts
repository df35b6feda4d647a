import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  chatMessageSchema,
  streams,
  type AdViewTicketResponse,
  toChatMessageView,
  type CommandContext,
  type FreePointResponse,
  type Principal,
  type SendChatMessageResponse,
  type UserView,
} from '@pass/events';
import { DomainError } from '@pass/events';
import type { CommandServices } from '../kernel/services';
import { tooManyActionsMessage, type ThrottledAction } from '../sessions/rate-limiter';
import { readDomainEvent } from '../kernel/command-handler';
import { RETRY_WINDOW_MESSAGES, userDecider, type UserState } from './decider';
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

const chatRetrySchema = z.object({
  requestId: z
    .string({ error: 'The request id is not valid' })
    .regex(/^[\w.:-]{1,100}$/, 'The request id is not valid')
    .optional(),
});

/**
 * The message id of a member's send with a client request id: the same for every retry of that
 * send, so the user decider can tell the retry from a new message. A UUID-shaped SHA-256 of
 * member and request id (one member's id cannot name another member's message).
 */
export function chatMessageIdFor(userId: string, requestId: string): string {
  const hex = createHash('sha256').update(`chat\n${userId}\n${requestId}`).digest('hex');
  // Version 8 (custom) and the RFC 4122 variant, so it reads as a UUID like the random ones.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}


/** The answer the first send of `messageId` had: its message as stored, and the member as they are now. */
async function firstAnswer(s: CommandServices, state: UserState, messageId: string): Promise<SendChatMessageResponse> {
  const recent = await s.handler.store.readStream(streams.user(state.userId), { direction: 'backwards', maxCount: 4 * RETRY_WINDOW_MESSAGES });
  for (const recorded of recent) {
    const event = readDomainEvent(recorded);
    if (event.type === 'ChatMessageSent' && event.data.messageId === messageId) return { message: toChatMessageView(event.data), user: toUserView(state) };
  }
  throw new Error(`Chat message ${messageId} is recorded as sent but was not found`);
}

/**
 * Sends a chat message. With a `requestId` (the web sends one per draft, the same on every retry
 * of it) a message already posted is not posted again: the answer is the first one's message,
 * whatever text the retry carries, and a retry spends no point and no chat allowance.
 */
export async function sendChatMessage(
  s: CommandServices,
  user: Principal,
  draft: unknown,
  ctx: CommandContext,
  clientAddress?: string,
): Promise<SendChatMessageResponse> {
  const { message } = chatMessageSchema.parse(draft);
  const { requestId } = chatRetrySchema.parse(draft);
  const messageId = requestId ? chatMessageIdFor(user.id, requestId) : randomUUID();
  // A retry this instance already knows about is answered before the chat limit can refuse it;
  // one it does not (cache behind, another instance) goes through the decider, which posts nothing.
  const cached = s.handler.peek(userDecider, streams.user(user.id));
  if (requestId && cached?.recentChatMessageIds.includes(messageId)) return firstAnswer(s, cached, messageId);
  await throttle(s, 'chat', user, clientAddress);
  const { state, events } = await s.handler.handle(
    userDecider,
    streams.user(user.id),
    { type: 'SendChatMessage', data: { userId: user.id, messageId, message }, now: ctx.now },
    ctx,
  );
  const sent = events.find((e) => e.type === 'ChatMessageSent');
  if (sent?.type !== 'ChatMessageSent') return firstAnswer(s, state, messageId);
  return { message: toChatMessageView(sent.data), user: toUserView(state) };
}

export async function currentUser(s: CommandServices, user: Principal): Promise<UserView> {
  const { state } = await s.handler.load(userDecider, streams.user(user.id));
  if (!state.exists) throw new DomainError('not_found', 'This member does not exist');
  return toUserView(state);
}
