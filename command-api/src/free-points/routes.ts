import { Router } from 'express';
import type { FastLaneRoute } from '@pass/events';
import { requireMember } from '../http/auth';
import { commandContext } from '../http/context';
import { expressHandler } from '../http/fast-lane';
import type { CommandServices } from '../services';
import { awardFreePoint, issueAdViewTicket } from './actions';

/** POST /api/free-point/ticket and POST /api/free-point (the fast lane serves them too). */
export function freePointFastLaneRoutes(s: CommandServices): FastLaneRoute<'POST'>[] {
  return [
    {
      method: 'POST',
      // /content/check asks for this when its countdown starts, and sends it back with the award.
      path: '/api/free-point/ticket',
      answer: ({ req, auth }) => {
        const user = requireMember(auth);
        return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: issueAdViewTicket(s, user, commandContext(req, user, s.clock)) };
      },
    },
    {
      method: 'POST',
      path: '/api/free-point',
      answer: async ({ req, body, auth, clientAddress }) => {
        const user = requireMember(auth);
        return { status: 200, body: await awardFreePoint(s, user, body, commandContext(req, user, s.clock), clientAddress) };
      },
    },
  ];
}

/** The same routes behind Express. */
export function freePointRoutes(s: CommandServices): Router {
  const router = Router();
  for (const route of freePointFastLaneRoutes(s)) router.post(route.path, expressHandler(route));
  return router;
}
