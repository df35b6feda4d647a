import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { CommandGateway, FreePointResponse, GatewayResult, RequestContext, SendChatMessageResponse, UserView } from '@pass/events';

export interface HttpCommandGatewayOptions {
  /** Where command-api listens, e.g. `http://command-api:3001`. */
  baseUrl: string;
  timeoutMs?: number;
}

const UNAVAILABLE = 'The service is temporarily unavailable, please try again';

/** Where and how requests go: command-api's address, a keep-alive agent, the bound on one exchange. */
interface Target {
  base: URL;
  prefix: string;
  secure: boolean;
  agent: HttpAgent | HttpsAgent;
  timeoutMs: number;
}

/** Status and parsed JSON body (null when there is none or it is not JSON); rejects when command-api cannot be reached in time. */
function exchange(target: Target, method: string, path: string, headers: Record<string, string | number>, payload: string | undefined): Promise<{ status: number; body: unknown }> {
  const { base, secure, agent, timeoutMs } = target;
  const request: RequestOptions = { host: base.hostname, port: base.port || (secure ? 443 : 80), method, path: target.prefix + path, headers, agent };
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((done, fail) => {
    const req = send(request, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        let body: unknown = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        } catch {
          // not JSON: the status decides
        }
        done({ status: res.statusCode ?? 0, body });
      });
    });
    // A bound on the whole exchange, like fetch's AbortSignal.timeout.
    const timer = setTimeout(() => req.destroy(new Error(`command-api did not answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    req.end(payload);
  });
}

/**
 * The distributed CommandGateway: query-api's sockets forward their commands to command-api over
 * HTTP with the socket's own Cookie header, so command-api authenticates them as it does browser
 * requests (the Principal the socket resolved is not trusted across the hop). node:http on a
 * keep-alive agent, not fetch, whose WHATWG machinery weighs on hundreds of small commands a
 * second; idle connections close after 4 s, before command-api's 5 s keep-alive timeout, so no
 * command is sent on a connection the server is closing.
 */
export function createHttpCommandGateway(options: HttpCommandGatewayOptions): CommandGateway {
  const base = new URL(options.baseUrl);
  const secure = base.protocol === 'https:';
  const agentOptions = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' as const };
  const target: Target = {
    base,
    prefix: base.pathname.replace(/\/+$/, ''),
    secure,
    agent: secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions),
    timeoutMs: options.timeoutMs ?? 10_000,
  };

  async function call<T>(method: string, path: string, ctx: RequestContext, body?: unknown): Promise<GatewayResult<T>> {
    if (!ctx.cookieHeader) return { ok: false, status: 401, error: 'Please join to continue' };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = {
      cookie: ctx.cookieHeader,
      'x-request-id': ctx.correlationId,
      accept: 'application/json',
    };
    // The socket's client, for per-address limits; believed only where TRUST_PROXY trusts query-api.
    if (ctx.clientAddress) headers['x-forwarded-for'] = ctx.clientAddress;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    let res: { status: number; body: unknown };
    try {
      res = await exchange(target, method, path, headers, payload);
    } catch {
      return { ok: false, status: 503, error: UNAVAILABLE };
    }
    if (res.status >= 200 && res.status < 300) return { ok: true, data: res.body as T };
    const { error, retryAfterSeconds: wait } = (res.body as { error?: unknown; retryAfterSeconds?: unknown } | null) ?? {};
    const failure = { ok: false as const, status: res.status, error: typeof error === 'string' ? error : UNAVAILABLE };
    return typeof wait === 'number' && wait > 0 ? { ...failure, retryAfterSeconds: wait } : failure;
  }

  return {
    sendChatMessage: (_user, draft, ctx) => call<SendChatMessageResponse>('POST', '/api/chat-messages', ctx, draft),
    awardFreePoint: (_user, request, ctx) => call<FreePointResponse>('POST', '/api/free-point', ctx, request),
    currentUser: (user, ctx) => call<UserView>('GET', `/api/verify-access/${encodeURIComponent(user.id)}`, ctx),
  };
}
