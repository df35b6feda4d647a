import type { CommandGateway, FreePointResponse, GatewayResult, RequestContext, SendChatMessageResponse, UserView } from '@pass/events';

export interface HttpCommandGatewayOptions {
  /** Where command-api listens, e.g. `http://command-api:3001`. */
  baseUrl: string;
  timeoutMs?: number;
}

const UNAVAILABLE = 'The service is temporarily unavailable, please try again';

/**
 * The distributed CommandGateway: query-api's sockets forward their commands to command-api
 * over HTTP with the socket's own Cookie header, so command-api authenticates them exactly as it
 * does browser requests (the Principal the socket resolved is not trusted across the hop).
 */
export function createHttpCommandGateway(options: HttpCommandGatewayOptions): CommandGateway {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call<T>(method: string, path: string, ctx: RequestContext, body?: unknown): Promise<GatewayResult<T>> {
    if (!ctx.cookieHeader) return { ok: false, status: 401, error: 'Please join to continue' };
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: {
          cookie: ctx.cookieHeader,
          'x-request-id': ctx.correlationId,
          // The socket's client, for per-address limits; believed only where TRUST_PROXY trusts query-api.
          ...(ctx.clientAddress ? { 'x-forwarded-for': ctx.clientAddress } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      return { ok: false, status: 503, error: UNAVAILABLE };
    }
    const payload = (await res.json().catch(() => null)) as unknown;
    if (res.ok) return { ok: true, data: payload as T };
    const error = (payload as { error?: unknown } | null)?.error;
    return { ok: false, status: res.status, error: typeof error === 'string' ? error : UNAVAILABLE };
  }

  return {
    sendChatMessage: (_user, draft, ctx) => call<SendChatMessageResponse>('POST', '/api/chat-messages', ctx, draft),
    awardFreePoint: (_user, request, ctx) => call<FreePointResponse>('POST', '/api/free-point', ctx, request),
    currentUser: (user, ctx) => call<UserView>('GET', `/api/verify-access/${encodeURIComponent(user.id)}`, ctx),
  };
}
