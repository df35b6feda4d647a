import { Router } from 'express';
import type { FastLaneRoute } from '@pass/events';
import { requireMember } from '../http/auth';
import { commandContext } from '../http/context';
import { expressHandler } from '../http/fast-lane';
import type { CommandServices } from '../services';
import { awardFreePoint, issueAdViewTicket } from './actions';

/** POST /api/free-point/ticket and POST /api/free-point (the fast lane serves them too). */
export function freePointFastLaneRoutes(services: CommandServices): FastLaneRoute<'POST'>[] {
  return [
    {
      method: 'POST',
      // /content/check asks for this when its countdown starts, and sends it back with the award.
      path: '/api/free-point/ticket',
      answer: ({ req, auth }) => {
        const user = requireMember(auth);
        return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: issueAdViewTicket(services, user, commandContext(req, user, services.clock)) };
      },
    },
    {
      method: 'POST',
      path: '/api/free-point',
      answer: async ({ req, body, auth, clientAddress }) => {
        const user = requireMember(auth);
        return { status: 200, body: await awardFreePoint(services, user, body, commandContext(req, user, services.clock), clientAddress) };
      },
    },
  ];
}

/** The same routes behind Express. */
export function freePointRoutes(services: CommandServices): Router {
  const router = Router();
  for (const route of freePointFastLaneRoutes(services)) router.post(route.path, expressHandler(route));
  return router;
}
