import { Router } from 'express';
import type { FastLaneRoute } from '@pass/events';
import { requireMember } from '../http/auth';
import { commandContext } from '../http/context';
import { expressHandler } from '../http/fast-lane';
import type { CommandServices } from '../services';
import { sendChatMessage } from './actions';

/** POST /api/chat-messages: one point per message, spent in the same append that records the text. */
export function chatMessageRoute(s: CommandServices): FastLaneRoute<'POST'> {
  return {
    method: 'POST',
    path: '/api/chat-messages',
    answer: async ({ req, body, auth, clientAddress }) => {
      const user = requireMember(auth);
      return { status: 201, body: await sendChatMessage(s, user, body ?? {}, commandContext(req, user, s.clock), clientAddress) };
    },
  };
}

export function chatRoutes(s: CommandServices): Router {
  const router = Router();
  const send = chatMessageRoute(s);
  router.post(send.path, expressHandler(send));
  return router;
}
