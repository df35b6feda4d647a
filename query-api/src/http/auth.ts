import type { Request, Response } from 'express';
import { ADMIN_MESSAGES, markSessionAnswer, type AuthenticatedRequest, type SessionVerifier } from '@pass/events';

const cache = new WeakMap<Request, Promise<AuthenticatedRequest>>();

/**
 * The request's principals, verified once per request from its session cookies. The answer then
 * depends on the session: it leaves with `Cache-Control: no-store`.
 */
export function authOf(req: Request, res: Response, sessions: SessionVerifier): Promise<AuthenticatedRequest> {
  markSessionAnswer(res);
  let auth = cache.get(req);
  if (!auth) cache.set(req, (auth = sessions.verify(req.headers.cookie)));
  return auth;
}

/**
 * Admin principal, or answers and returns null: 401 without any session, 403 for a member (as
 * command-api's admin routes do: signed in, but not allowed).
 */
export async function requireAdmin(req: Request, res: Response, sessions: SessionVerifier) {
  const { admin, user } = await authOf(req, res, sessions);
  if (!admin) {
    if (user) res.status(403).json({ error: 'Only the admin can do this' });
    else res.status(401).json({ error: ADMIN_MESSAGES.loginFirst });
  }
  return admin;
}
