import { Router } from 'express';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import type { CommandServices } from '../kernel/services';
import { sendChatMessage } from '../users/actions';

export function chatRoutes(s: CommandServices): Router {
  const router = Router();
  // One point per message, spent in the same append that records the text.
  router.post('/api/chat-messages', async (req, res) => {
    const user = requireUser(res);
    res.status(201).json(await sendChatMessage(s, user, req.body ?? {}, commandContext(req, user, s.clock), req.ip));
  });
  return router;
}
