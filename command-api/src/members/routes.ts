import { joinFormSchema, type RegisterUserResponse } from '@pass/events';
import { Router } from 'express';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import type { CommandServices } from '../services';
import { tooManyAttemptsMessage } from '../sessions/rate-limiter';
import { currentUser } from './current-user';
import { join } from './join';
import { toUserView } from './view';

/** Joining, leaving and reading one's own account. */
export function memberRoutes(services: CommandServices): Router {
  const router = Router();

  // The join form: registers an unknown e-mail, logs in a known one with the right password.
  router.post('/api/register-user', async (req, res) => {
    const form = joinFormSchema.parse(req.body ?? {});
    const device = services.devices.trusted(req.headers.cookie, 'user', form.email);
    const joined = await services.throttle.guard(form.email, req.ip ?? 'unknown', tooManyAttemptsMessage, () => join(services, form, commandContext(req, null, services.clock)), device);
    const { cookieValue } = await services.sessions.issue('user', joined.user.userId);
    services.sessions.setCookie(res, 'user', cookieValue);
    services.devices.issue(res, 'user', form.email);
    const body: RegisterUserResponse = { ...toUserView(joined.user), registered: joined.registered };
    res.status(joined.registered ? 201 : 200).json(body);
  });

  router.post('/api/logout', async (req, res) => {
    await services.sessions.revoke(req.headers.cookie, 'user');
    services.sessions.clearCookie(res, 'user');
    res.status(204).end();
  });

  // Only the session's own member: the id in the path is the web app's local copy, not a credential.
  router.get('/api/verify-access/:userId', async (req, res) => {
    const user = requireUser(res);
    if (req.params.userId !== user.id) throw new HttpError(403, 'You can only open your own account');
    res.json(await currentUser(services, user));
  });

  return router;
}
