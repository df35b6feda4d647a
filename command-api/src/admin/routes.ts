import { adminLoginSchema } from '@pass/events';
import { Router } from 'express';
import { authOf } from '../http/auth';
import { HttpError } from '../http/errors';
import { isDomainError } from '@pass/events';
import type { CommandServices } from '../kernel/services';
import { tooManyAdminAttemptsMessage } from '../sessions/rate-limiter';
import { adminView, checkAdminCredentials } from './accounts';

export function adminRoutes(s: CommandServices): Router {
  const router = Router();

  router.post('/api/admin-login', async (req, res) => {
    const { email, password } = adminLoginSchema.parse(req.body ?? {});
    const wait = await s.throttle.attempt(`admin:${email}`, req.ip ?? 'unknown');
    if (wait > 0) throw new HttpError(429, tooManyAdminAttemptsMessage(wait), undefined, { 'Retry-After': String(wait) });
    let view;
    try {
      view = await checkAdminCredentials(s.handler, email, password);
    } catch (error) {
      if (isDomainError(error, 'unauthorized')) await s.throttle.failed(`admin:${email}`);
      throw error;
    }
    await s.throttle.succeeded(`admin:${email}`);
    const { cookieValue } = await s.sessions.issue('admin', view.id);
    s.sessions.setCookie(res, 'admin', cookieValue);
    res.json(view);
  });

  router.post('/api/admin-logout', async (req, res) => {
    await s.sessions.revoke(req.headers.cookie, 'admin');
    s.sessions.clearCookie(res, 'admin');
    res.status(204).end();
  });

  // Authorized only with an admin session for this very id; the stored flag in the browser proves nothing.
  router.post('/api/verify-admin-access/:adminId', async (req, res) => {
    const { admin } = authOf(res);
    res.json(await adminView(s.handler, req.params.adminId, admin?.id === req.params.adminId));
  });

  return router;
}
