/**
 * Ports shared by command-api (which issues sessions and handles commands) and query-api
 * (which authenticates REST reads and Socket.IO handshakes and forwards the sockets' state
 * changes). Standalone wires them in-process; distributed wires an HTTP client to command-api.
 */
import type {
  FreePointRequest,
  FreePointResponse,
  SendChatMessageRequest,
  SendChatMessageResponse,
  SignedOutReason,
  UserView,
} from './api';

export const USER_SESSION_COOKIE = 'pass_session';
export const ADMIN_SESSION_COOKIE = 'pass_admin';

export interface Principal {
  kind: 'user' | 'admin';
  /** userId or adminId. */
  id: string;
  sessionId: string;
  expiresAt: Date;
}

export interface AuthenticatedRequest {
  user: Principal | null;
  admin: Principal | null;
}

export interface SessionVerifier {
  /** Reads the Cookie header; revoked, expired or forged cookies give null principals. */
  verify(cookieHeader: string | undefined): Promise<AuthenticatedRequest>;
}

/**
 * Tells a member's open pages (their sockets) that their sessions ended, so they switch to the
 * guest state without a reload: command-api announces, query-api's sockets hear it (in-process,
 * or over Redis). Fire and forget: a page that misses it finds out on its next request.
 */
export interface SessionNotices {
  signedOut(userId: string, reason: SignedOutReason, exceptSessionId?: string): void;
}

/** Outcome of a command forwarded from a socket: the HTTP status it would have had (and a 429's wait, in seconds). */
export type GatewayResult<T> = { ok: true; data: T } | { ok: false; status: number; error: string; retryAfterSeconds?: number };

export interface RequestContext {
  correlationId: string;
  /** The original Cookie header, forwarded by the distributed HTTP gateway. */
  cookieHeader?: string;
  /** The client's address (per-address rate limits); the distributed gateway forwards it as X-Forwarded-For. */
  clientAddress?: string;
}

export interface CommandGateway {
  sendChatMessage(user: Principal, draft: SendChatMessageRequest, ctx: RequestContext): Promise<GatewayResult<SendChatMessageResponse>>;
  awardFreePoint(user: Principal, request: FreePointRequest, ctx: RequestContext): Promise<GatewayResult<FreePointResponse>>;
  currentUser(user: Principal, ctx: RequestContext): Promise<GatewayResult<UserView>>;
}
