import { ADMIN_MESSAGES, adminLoginSchema, DomainError, streams } from '@pass/events';
import { Router } from 'express';
import { authOf, requireAdmin } from '../http/auth';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import type { CommandServices } from '../services';
import { userDecider } from '../members/decider';
import { tooManyAdminAttemptsMessage } from '../sessions/rate-limiter';
import { markCardChange, withdrawReplacedImage } from '../uploads/card-images';
import { adminView, checkAdminCredentials } from './accounts';

const MEMBER_ID = /^[\w-]{1,100}$/;

/** The admin's session (docs/product.md §2 /content/admin) and moderation of members' posts. */
export function adminRoutes(services: CommandServices): Router {
  const router = Router();

  router.post('/api/admin-login', async (req, res) => {
    const { email, password } = adminLoginSchema.parse(req.body ?? {});
    const device = services.devices.trusted(req.headers.cookie, 'admin', email);
    const view = await services.throttle.guard(`admin:${email}`, req.ip ?? 'unknown', tooManyAdminAttemptsMessage, () => checkAdminCredentials(services.handler, email, password), device);
    const { cookieValue } = await services.sessions.issue('admin', view.id);
    services.sessions.setCookie(res, 'admin', cookieValue);
    services.devices.issue(res, 'admin', email);
    res.json(view);
  });

  router.post('/api/admin-logout', async (req, res) => {
    await services.sessions.revoke(req.headers.cookie, 'admin');
    services.sessions.clearCookie(res, 'admin');
    res.status(204).end();
  });

  // Authorized only with an admin session for this very id; the stored flag in the browser proves nothing.
  router.post('/api/verify-admin-access/:adminId', async (req, res) => {
    const { admin } = authOf(res);
    res.json(await adminView(services.handler, req.params.adminId, admin?.id === req.params.adminId));
  });

  router.delete('/api/member-post/:id', async (req, res) => {
    const admin = requireAdmin(res);
    // Ids are generated (UUIDs); anything else names no member (and must not reach the store as a stream name).
    if (!MEMBER_ID.test(req.params.id)) throw new HttpError(404, ADMIN_MESSAGES.noSuchMember);
    const ctx = commandContext(req, admin, services.clock);
    const stream = streams.user(req.params.id);
    const change = await markCardChange(services.uploadsDir, req.params.id);
    const deleted = await services.handler.handle(userDecider, stream, { type: 'DeleteMemberPost', data: { userId: req.params.id, deletedBy: admin.id }, now: ctx.now }, ctx).catch(async (error: unknown) => {
      if (error instanceof DomainError) await change.settle(); // refused: no file moves
      throw error;
    });
    // Acknowledged: the post's image is withdrawn too.
    if (await withdrawReplacedImage({ store: services.handler.store, uploadsDir: services.uploadsDir, logger: services.logger }, stream, deleted, null)) await change.settle();
    res.status(204).end();
  });

  return router;
}
