import { joinFormSchema, type CaptureOrderResponse, type RegisterUserResponse } from '@pass/events';
import { Router } from 'express';
import { z } from 'zod';
import { requireMember, requireUser } from '../http/auth';
import { expressHandler, type HotRoute } from '../http/hot-routes';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import { isDomainError } from '@pass/events';
import type { CommandServices } from '../kernel/services';
import { creditCapturedOrder } from '../payments/buy-points';
import { tooManyAttemptsMessage } from '../sessions/rate-limiter';
import { awardFreePoint, currentUser, issueAdViewTicket } from './actions';
import { join } from './join';
import { toUserView } from './view';

const buyPointsSchema = z.object({
  orderId: z.string({ error: 'The payment order is missing' }).trim().min(1, 'The payment order is missing').max(200),
});

/** POST /api/free-point/ticket and POST /api/free-point (hot routes: the fast lane serves them too). */
export function freePointRoutes(s: CommandServices): HotRoute[] {
  return [
    {
      // /content/check asks for this when its countdown starts, and sends it back with the award.
      path: '/api/free-point/ticket',
      answer: ({ req, auth }) => {
        const user = requireMember(auth);
        return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: issueAdViewTicket(s, user, commandContext(req, user, s.clock)) };
      },
    },
    {
      path: '/api/free-point',
      answer: async ({ req, body, auth, clientAddress }) => {
        const user = requireMember(auth);
        return { status: 200, body: await awardFreePoint(s, user, body, commandContext(req, user, s.clock), clientAddress) };
      },
    },
  ];
}

export function userRoutes(s: CommandServices): Router {
  const router = Router();

  // The join form: registers an unknown e-mail, logs in a known one with the right password.
  router.post('/api/register-user', async (req, res) => {
    const form = joinFormSchema.parse(req.body ?? {});
    const ip = req.ip ?? 'unknown';
    const wait = await s.throttle.attempt(form.email, ip);
    if (wait > 0) throw new HttpError(429, tooManyAttemptsMessage(wait), undefined, { 'Retry-After': String(wait) });
    let joined;
    try {
      joined = await join(s, form, commandContext(req, null, s.clock));
    } catch (error) {
      if (isDomainError(error, 'unauthorized')) await s.throttle.failed(form.email);
      throw error;
    }
    await s.throttle.succeeded(form.email);
    const { cookieValue } = await s.sessions.issue('user', joined.user.userId);
    s.sessions.setCookie(res, 'user', cookieValue);
    const body: RegisterUserResponse = { ...toUserView(joined.user), registered: joined.registered };
    res.status(joined.registered ? 201 : 200).json(body);
  });

  router.post('/api/logout', async (req, res) => {
    await s.sessions.revoke(req.headers.cookie, 'user');
    s.sessions.clearCookie(res, 'user');
    res.status(204).end();
  });

  // Only the session's own member: the id in the path is the web app's local copy, not a credential.
  router.get('/api/verify-access/:userId', async (req, res) => {
    const user = requireUser(res);
    if (req.params.userId !== user.id) throw new HttpError(403, 'You can only open your own account');
    res.json(await currentUser(s, user));
  });

  for (const route of freePointRoutes(s)) router.post(route.path, expressHandler(route));

  router.post('/api/buy-points', async (req, res) => {
    const user = requireUser(res);
    const { orderId } = buyPointsSchema.parse(req.body ?? {});
    const { user: state, points } = await creditCapturedOrder(s, user.id, orderId, commandContext(req, user, s.clock));
    const body: CaptureOrderResponse = { status: 'COMPLETED', points, user: toUserView(state) };
    res.json(body);
  });

  return router;
}
