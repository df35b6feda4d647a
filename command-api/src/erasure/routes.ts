import { ADMIN_MESSAGES, DomainError, isDomainError, streams } from '@pass/events';
import { Router } from 'express';
import { z } from 'zod';
import { requireAdmin, requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import type { CommandServices } from '../services';
import { userDecider } from '../members/decider';
import { requireRegistered } from '../members/state';
import { verifyPassword } from '../sessions/passwords';
import { tooManyAttemptsMessage } from '../sessions/rate-limiter';
import { eraseMember } from './erase';

const WRONG_PASSWORD = 'Your password is not correct';
const deleteAccountSchema = z.object({ password: z.string().min(1, WRONG_PASSWORD).max(100, WRONG_PASSWORD) });
/** Ids are generated (UUIDs); anything else names no member (and must not reach the store as a stream name). */
const MEMBER_ID = /^[\w-]{1,100}$/;

/**
 * Erasure (docs/architecture.md, "Personal data"): DELETE /api/my-account { password } (the member, whose session then ends)
 * and DELETE /api/admin/members/:userId (an admin acting on a request). Both answer 204.
 */
export function erasureRoutes(services: CommandServices): Router {
  const router = Router();

  router.delete('/api/my-account', async (req, res) => {
    const principal = requireUser(res);
    const parsed = deleteAccountSchema.safeParse(req.body ?? {});
    const wrong = () => new DomainError('invalid', WRONG_PASSWORD, { fields: { password: WRONG_PASSWORD } });
    if (!parsed.success) throw wrong();
    const { state } = await services.handler.load(userDecider, streams.user(principal.id));
    requireRegistered(state);
    try {
      // A wrong password counts as a failed login of the account from this client.
      const device = services.devices.trusted(req.headers.cookie, 'user', state.email);
      await services.throttle.guard(state.email, req.ip ?? 'unknown', tooManyAttemptsMessage, async () => {
        if (!(await verifyPassword(state.passwordHash, parsed.data.password))) throw new DomainError('unauthorized', WRONG_PASSWORD);
      }, device);
    } catch (error) {
      // Signed in: a field to correct, not a session problem (401 would send the web to join).
      if (isDomainError(error, 'unauthorized')) throw wrong();
      throw error;
    }
    await eraseMember(services, principal.id, { requestedBy: 'member' }, commandContext(req, principal, services.clock));
    services.sessions.clearCookie(res, 'user');
    res.status(204).end();
  });

  router.delete('/api/admin/members/:userId', async (req, res) => {
    const admin = requireAdmin(res);
    if (!MEMBER_ID.test(req.params.userId)) throw new HttpError(404, ADMIN_MESSAGES.noSuchMember);
    await eraseMember(services, req.params.userId, { requestedBy: 'admin', adminId: admin.id }, commandContext(req, admin, services.clock)).catch((error: unknown) => {
      // The dashboard's language for the one refusal an admin meets here.
      throw isDomainError(error, 'not_found') ? new DomainError('not_found', ADMIN_MESSAGES.noSuchMember) : error;
    });
    res.status(204).end();
  });

  return router;
}
