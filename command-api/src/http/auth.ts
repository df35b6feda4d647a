import { ADMIN_MESSAGES, markSessionAnswer, type AuthenticatedRequest, type Principal } from '@pass/events';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Sessions } from '../sessions/sessions';
import { HttpError } from './errors';

/**
 * Reads the session cookies once per request. Every command answer depends on the session (the
 * member it names, or a refusal): all leave with `Cache-Control: no-store`.
 */
export function authenticate(sessions: Sessions): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    markSessionAnswer(res);
    res.locals.auth = await sessions.verify(req.headers.cookie);
    next();
  };
}

export function authOf(res: Response): AuthenticatedRequest {
  return (res.locals.auth as AuthenticatedRequest | undefined) ?? { user: null, admin: null };
}

export const JOIN_FIRST = 'Please join to continue';
export const ADMIN_ONLY = 'Only the admin can do this';
export const ADMIN_LOGIN_FIRST = ADMIN_MESSAGES.loginFirst;

/** The member of the session: 401 for guests. */
export function requireUser(res: Response): Principal {
  return requireMember(authOf(res));
}

/** `requireUser` on a request's verified sessions (the fast lane has no `res.locals`). */
export function requireMember(auth: AuthenticatedRequest): Principal {
  if (!auth.user) throw new HttpError(401, JOIN_FIRST);
  return auth.user;
}

/** The admin of the session, checked on the server: 401 without any session, 403 for a member. */
export function requireAdmin(res: Response): Principal {
  const { admin, user } = authOf(res);
  if (admin) return admin;
  if (user) throw new HttpError(403, ADMIN_ONLY);
  throw new HttpError(401, ADMIN_LOGIN_FIRST);
}
