import { Router } from 'express';
import type { FastLaneRoute } from '@pass/events';
import { requireMember } from '../http/auth';
import { commandContext } from '../http/context';
import { expressHandler } from '../http/fast-lane';
import type { CommandServices } from '../services';
import { sendChatMessage } from './actions';

/** POST /api/chat-messages: one point per message, spent in the same append that records the text. */
export function chatMessageRoute(services: CommandServices): FastLaneRoute<'POST'> {
  return {
    method: 'POST',
    path: '/api/chat-messages',
    answer: async ({ req, body, auth, clientAddress }) => {
      const user = requireMember(auth);
      return { status: 201, body: await sendChatMessage(services, user, body ?? {}, commandContext(req, user, services.clock), clientAddress) };
    },
  };
}

export function chatRoutes(services: CommandServices): Router {
  const router = Router();
  const send = chatMessageRoute(services);
  router.post(send.path, expressHandler(send));
  return router;
}
