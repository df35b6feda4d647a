import { randomUUID } from 'node:crypto';
import {
  ACCOUNT_ACCESS_MESSAGES,
  DomainError,
  changePasswordSchema,
  isDomainError,
  normalizeEmail,
  passwordResetCheckSchema,
  passwordResetConfirmSchema,
  passwordResetSchema,
  streams,
  type CommandContext,
  type PasswordResetCheckResponse,
  type PasswordResetResponse,
} from '@pass/events';
import { Router } from 'express';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import type { CommandServices } from '../services';
import { resetMail } from '../mail/reset-mail';
import { userDecider } from '../members/decider';
import { emailDecider } from '../members/email-decider';
import { requireRegistered } from '../members/state';
import { resetLinkHolds } from './password-reset';
import { hashPassword, verifyPassword } from '../sessions/passwords';
import { tooManyAttemptsMessage } from '../sessions/rate-limiter';

/** A used, expired or forged link: one answer, on the form's token field. */
const invalidLink = () => new DomainError('invalid', ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid, { fields: { token: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } });

/**
 * A member's access (command-api/README.md, "Members' data and access"): changing the password,
 * signing out everywhere, and recovering an account by a mailed link. Each ends sessions through
 * the session store, so they stop on every process at once (query-api verifies against the same
 * store).
 */
export function accessRoutes(services: CommandServices): Router {
  const router = Router();

  // Knowing the current password: a wrong one counts as a failed login of that account from this client.
  router.post('/api/change-password', async (req, res) => {
    const principal = requireUser(res);
    const form = changePasswordSchema.parse(req.body ?? {});
    const { state } = await services.handler.load(userDecider, streams.user(principal.id));
    requireRegistered(state);
    try {
      const device = services.devices.trusted(req.headers.cookie, 'user', state.email);
      await services.throttle.guard(state.email, req.ip ?? 'unknown', tooManyAttemptsMessage, async () => {
        if (!(await verifyPassword(state.passwordHash, form.currentPassword))) throw new DomainError('unauthorized', ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword);
      }, device);
    } catch (error) {
      if (!isDomainError(error, 'unauthorized')) throw error;
      // Signed in: not a session problem (401 would send the web to the join page), a field to correct.
      throw new DomainError('invalid', ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword, { fields: { currentPassword: ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword } });
    }
    const passwordHash = await hashPassword(form.newPassword);
    await services.handler.handle(userDecider, streams.user(principal.id), { type: 'ChangePassword', data: { userId: principal.id, passwordHash }, now: services.clock() }, commandContext(req, principal, services.clock));
    const ended = await services.sessions.endAllOf('user', principal.id, principal.sessionId, 'password-changed');
    req.log?.info({ userId: principal.id, sessionsEnded: ended }, 'password changed');
    res.status(204).end();
  });

  router.post('/api/logout-everywhere', async (req, res) => {
    const principal = requireUser(res);
    const ended = await services.sessions.endAllOf('user', principal.id, undefined, 'everywhere');
    services.sessions.clearCookie(res, 'user');
    req.log?.info({ userId: principal.id, sessionsEnded: ended }, 'signed out everywhere');
    res.status(204).end();
  });

  // The same answer, as fast, for any address, and the same work after it (mailResetLink).
  router.post('/api/password-reset', async (req, res) => {
    const { email } = passwordResetSchema.parse(req.body ?? {});
    await services.actions.enforce('passwordReset', normalizeEmail(email), req.ip);
    const ctx = commandContext(req, null, services.clock);
    services.background.run(() => mailResetLink(services, email, ctx));
    const body: PasswordResetResponse = { message: ACCOUNT_ACCESS_MESSAGES.resetRequested };
    res.status(202).json(body);
  });

  // The link's page asks on arrival, so a used or expired link says so before a password is typed.
  router.post('/api/password-reset/check', async (req, res) => {
    const { token } = passwordResetCheckSchema.parse(req.body ?? {});
    await openHoldingLink(services, token);
    const body: PasswordResetCheckResponse = { usable: true };
    res.status(200).json(body);
  });

  router.post('/api/password-reset/confirm', async (req, res) => {
    const form = passwordResetConfirmSchema.parse(req.body ?? {});
    // Checked before the hash is paid for; the decider checks again on the state it appends to.
    const { link, state } = await openHoldingLink(services, form.token);
    const { userId, issuedAt, tokenHash } = link;
    const passwordHash = await hashPassword(form.password);
    try {
      const command = { type: 'ResetPassword', data: { userId, tokenHash, passwordHash, issuedAt: issuedAt.toISOString() }, now: services.clock() } as const;
      await services.handler.handle(userDecider, streams.user(userId), command, commandContext(req, null, services.clock));
    } catch (error) {
      // Used meanwhile by a request in flight, or expired during the hash.
      throw isDomainError(error, 'invalid') ? invalidLink() : error;
    }
    const ended = await services.sessions.endAllOf('user', userId, undefined, 'password-changed');
    // The mail proved the owner: the account's ceiling starts over, and this browser is theirs.
    await services.throttle.clearAccount(state.email);
    services.devices.issue(res, 'user', state.email);
    req.log?.info({ userId, sessionsEnded: ended }, 'password set with a reset link');
    res.status(204).end();
  });

  return router;
}

/** The link a token names and its member's state, while it still sets a password; else the one refusal. Reads only. */
async function openHoldingLink(services: CommandServices, token: string) {
  const link = services.resetLinks.open(token);
  if (!link) throw invalidLink();
  const { state } = await services.handler.load(userDecider, streams.user(link.userId));
  if (!resetLinkHolds(state, link.issuedAt, services.clock())) throw invalidLink();
  return { link, state };
}

/**
 * Mails a link to a registered address. An unknown address costs the same: its reservation is
 * read, a link is made (for no member) and its mail built, only not delivered, and one line is
 * logged. Nothing is appended for either, so the request after this one cannot tell them apart
 * by its wait. Logs ids, never the address.
 */
async function mailResetLink(services: CommandServices, email: string, ctx: CommandContext): Promise<void> {
  const log = services.logger.child({ requestId: ctx.correlationId });
  try {
    const { state: reservation } = await services.handler.load(emailDecider, services.emailStream(email));
    // An erased member's address reads as '' (its key is gone) until the erasure releases it.
    const userId = reservation.userId && reservation.email ? reservation.userId : undefined;
    const mail = resetMail(userId ? reservation.email : email, services.siteUrl, services.resetLinks.make(userId ?? randomUUID(), services.clock()));
    if (!userId) {
      await services.mailer.rehearse(mail);
      log.info('password reset asked for an address with no account');
      return;
    }
    await services.mailer.send(mail);
    log.info({ userId }, 'password reset link sent');
  } catch (error) {
    // Not the error itself: an SMTP refusal quotes the recipient's address.
    const mailError = error as { name?: string; code?: string; responseCode?: number };
    log.error({ error: mailError.name ?? 'Error', code: mailError.code, responseCode: mailError.responseCode }, 'password reset link not sent');
  }
}
