import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';
import {
  ADMIN_SESSION_COOKIE,
  LIMITS,
  USER_SESSION_COOKIE,
  type AuthenticatedRequest,
  type Principal,
  type SessionNotices,
  type SessionVerifier,
  type SignedOutReason,
} from '@pass/events';
import type { Clock } from '../kernel/clock';
import { isLive, LAST_SEEN_GRANULARITY_MS, type SessionRecord, type SessionStore } from './session-store';

export const SESSION_TTL_MS = LIMITS.sessionCookieHours * 60 * 60 * 1000;
const SIGNED_VALUES_KEPT = 100_000;
const COOKIE_NAMES = { user: USER_SESSION_COOKIE, admin: ADMIN_SESSION_COOKIE } as const;

export interface SessionsOptions {
  store: SessionStore;
  /** Signs cookie values, so a forged id is refused without a store lookup. */
  secret: string;
  cookieSecure: boolean;
  clock: Clock;
  /** Where ended sessions are announced (query-api's sockets); none: nowhere. */
  notices?: SessionNotices;
}

/** Cookie header → name/value pairs (first occurrence wins, as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || out.has(name)) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      out.set(name, decodeURIComponent(value));
    } catch {
      out.set(name, value);
    }
  }
  return out;
}

/**
 * Issues, verifies and revokes the 24 h sessions of members and the admin (docs/product.md §1: "the
 * cookie lasts 24 hours, assigned at registration"). The cookie is httpOnly and SameSite=Lax;
 * its value is `<random id>.<HMAC>`, and the session record in the store is what makes it
 * valid: logout deletes the record, so a replayed cookie fails everywhere.
 */
export class Sessions implements SessionVerifier {
  /** Cookie values whose signature checked out, so a member's next requests skip the HMAC (bounded). */
  private readonly signedValues = new Map<string, string>();
  /** When this process last wrote each session's last-seen time (bounded like `signedValues`). */
  private readonly seenWritten = new Map<string, number>();

  constructor(private readonly options: SessionsOptions) {}

  async issue(kind: Principal['kind'], subjectId: string): Promise<{ cookieValue: string; principal: Principal }> {
    const id = randomBytes(24).toString('base64url');
    const now = this.options.clock();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    const record: SessionRecord = { id, kind, subjectId, createdAt: now.toISOString(), expiresAt: expiresAt.toISOString() };
    await this.options.store.create(record);
    return { cookieValue: `${id}.${this.sign(id)}`, principal: { kind, id: subjectId, sessionId: id, expiresAt } };
  }

  setCookie(res: Response, kind: Principal['kind'], cookieValue: string): void {
    res.cookie(COOKIE_NAMES[kind], cookieValue, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.options.cookieSecure,
      path: '/',
      maxAge: SESSION_TTL_MS,
    });
  }

  clearCookie(res: Response, kind: Principal['kind']): void {
    res.clearCookie(COOKIE_NAMES[kind], { httpOnly: true, sameSite: 'lax', secure: this.options.cookieSecure, path: '/' });
  }

  async verify(cookieHeader: string | undefined): Promise<AuthenticatedRequest> {
    const cookies = parseCookies(cookieHeader);
    const [user, admin] = await Promise.all([
      this.principal('user', cookies.get(USER_SESSION_COOKIE)),
      this.principal('admin', cookies.get(ADMIN_SESSION_COOKIE)),
    ]);
    return { user, admin };
  }

  /** Ends the session the cookie names (if it is a valid one of that kind). */
  async revoke(cookieHeader: string | undefined, kind: Principal['kind']): Promise<void> {
    const principal = await this.principal(kind, parseCookies(cookieHeader).get(COOKIE_NAMES[kind]));
    if (principal) await this.options.store.revoke(principal.sessionId);
  }

  /** The live sessions of a member, oldest first (what their data export lists). */
  async sessionsOf(kind: Principal['kind'], subjectId: string): Promise<SessionRecord[]> {
    const now = this.options.clock().getTime();
    const records = await this.options.store.listOf(kind, subjectId);
    return records.filter((record) => isLive(record, now)).sort((one, other) => one.createdAt.localeCompare(other.createdAt));
  }

  /**
   * Ends every session of a member but `exceptSessionId` (none: every one): on this process at
   * once, and on every other (command-api's caches, query-api) by the store's revocation. With a
   * `reason`, the member's open pages are told why (all but the one of `exceptSessionId`).
   */
  async endAllOf(kind: Principal['kind'], subjectId: string, exceptSessionId?: string, reason?: SignedOutReason): Promise<number> {
    const ended = (await this.options.store.revokeAllOf(kind, subjectId, exceptSessionId)).length;
    if (kind === 'user' && reason) this.options.notices?.signedOut(subjectId, reason, exceptSessionId);
    return ended;
  }

  private async principal(kind: Principal['kind'], cookieValue: string | undefined): Promise<Principal | null> {
    if (!cookieValue) return null;
    const id = this.signedId(cookieValue);
    if (id === undefined) return null;
    const record = await this.options.store.get(id);
    if (!record || record.kind !== kind) return null;
    const expiresAt = new Date(record.expiresAt);
    const now = this.options.clock().getTime();
    if (expiresAt.getTime() <= now) return null;
    this.noteSeen(record, now);
    return { kind, id: record.subjectId, sessionId: id, expiresAt };
  }

  /** Writes the session's last-seen time when it is `LAST_SEEN_GRANULARITY_MS` old, off the request's path. */
  private noteSeen(record: SessionRecord, now: number): void {
    const last = Math.max(this.seenWritten.get(record.id) ?? 0, Date.parse(record.lastSeenAt ?? record.createdAt));
    if (now - last < LAST_SEEN_GRANULARITY_MS) return;
    if (this.seenWritten.size >= SIGNED_VALUES_KEPT) this.seenWritten.delete(this.seenWritten.keys().next().value!);
    this.seenWritten.set(record.id, now);
    // Informational only: a failed write leaves the older time, never a refused request.
    this.options.store.touch(record.id, new Date(now).toISOString()).catch(() => undefined);
  }

  /** The session id a cookie value carries, when its signature is ours. */
  private signedId(cookieValue: string): string | undefined {
    const known = this.signedValues.get(cookieValue);
    if (known !== undefined) return known;
    const dot = cookieValue.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const id = cookieValue.slice(0, dot);
    const given = Buffer.from(cookieValue.slice(dot + 1));
    const expected = Buffer.from(this.sign(id));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    if (this.signedValues.size >= SIGNED_VALUES_KEPT) this.signedValues.delete(this.signedValues.keys().next().value!);
    this.signedValues.set(cookieValue, id);
    return id;
  }

  private sign(id: string): string {
    return createHmac('sha256', this.options.secret).update(id).digest('base64url');
  }
}
