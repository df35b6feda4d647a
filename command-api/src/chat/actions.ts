import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  chatMessageSchema,
  streams,
  toChatMessageView,
  toCurrentEvent,
  type CommandContext,
  type Principal,
  type SendChatMessageResponse,
} from '@pass/events';
import type { CommandServices } from '../services';
import { userDecider } from '../members/decider';
import { RETRY_WINDOW_MESSAGES, type UserState } from '../members/state';
import { toUserView } from '../members/view';
import { chatMessageIdFor } from './retries';

const chatRetrySchema = z.object({
  requestId: z
    .string({ error: 'The request id is not valid' })
    .regex(/^[\w.:-]{1,100}$/, 'The request id is not valid')
    .optional(),
});

/** The answer the first send of `messageId` had: its message as stored, and the member as they are now. */
async function firstAnswer(services: CommandServices, state: UserState, messageId: string): Promise<SendChatMessageResponse> {
  const recent = await services.handler.store.readStream(streams.user(state.userId), { direction: 'backwards', maxCount: 4 * RETRY_WINDOW_MESSAGES });
  for (const recorded of recent) {
    const event = toCurrentEvent(recorded);
    if (event.type === 'ChatMessageSent' && event.data.messageId === messageId) return { message: toChatMessageView(event.data), user: toUserView(state) };
  }
  throw new Error(`Chat message ${messageId} is recorded as sent but was not found`);
}

/**
 * Sends a chat message (shared by the HTTP route and the Socket.IO gateway). With a `requestId`
 * (the web sends one per draft, the same on every retry of it) a message already posted is not
 * posted again: the answer is the first one's message, whatever text the retry carries, and a
 * retry spends no point and no chat allowance.
 */
export async function sendChatMessage(
  services: CommandServices,
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
  const cached = services.handler.peek(userDecider, streams.user(user.id));
  if (requestId && cached?.recentChatMessageIds.includes(messageId)) return firstAnswer(services, cached, messageId);
  await services.actions.enforce('chat', user.id, clientAddress);
  const { state, events } = await services.handler.handle(
    userDecider,
    streams.user(user.id),
    { type: 'SendChatMessage', data: { userId: user.id, messageId, message }, now: ctx.now },
    ctx,
  );
  const sent = events.find((candidate) => candidate.type === 'ChatMessageSent');
  if (sent?.type !== 'ChatMessageSent') return firstAnswer(services, state, messageId);
  return { message: toChatMessageView(sent.data), user: toUserView(state) };
}
