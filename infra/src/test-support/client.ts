import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@pass/events';

export type LiveClient = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface Response {
  status: number;
  // The tests assert the shape of whichever route they call.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A browser-like client for one origin: keeps the cookies the server sets. */
export class Browser {
  readonly cookies = new Map<string, string>();
  private readonly sockets: LiveClient[] = [];
  /** Sent as X-Forwarded-For (believed from loopback) when set: another client address than the test's own. */
  address: string | undefined;

  constructor(readonly origin: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, body?: unknown): Promise<Response> {
    const cookie = this.cookieHeader();
    const res = await fetch(this.origin + path, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(cookie ? { cookie } : {}),
        ...(this.address ? { 'x-forwarded-for': this.address } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed };
  }

  /**
   * A Socket.IO client with this browser's cookies in the handshake. WebSocket only by default;
   * `polling-first` does what browsers do (long-polling, then the upgrade).
   */
  async socket(origin = this.origin, transport: 'websocket' | 'polling-first' = 'websocket'): Promise<LiveClient> {
    const cookie = this.cookieHeader();
    const socket: LiveClient = connect(origin, {
      transports: transport === 'websocket' ? ['websocket'] : ['polling', 'websocket'],
      reconnection: false,
      extraHeaders: { ...(cookie ? { cookie } : {}), ...(this.address ? { 'x-forwarded-for': this.address } : {}) },
    });
    this.sockets.push(socket);
    await new Promise<void>((done, fail) => {
      socket.once('connect', () => done());
      socket.once('connect_error', fail);
    });
    return socket;
  }

  close(): void {
    for (const s of this.sockets) s.disconnect();
  }
}

/** Resolves with the first event matching `accept`, or rejects after `timeoutMs`. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: LiveClient,
  event: E,
  accept: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((done, fail) => {
    const on = socket.on as unknown as (e: string, l: (p: never) => void) => void;
    const off = socket.off as unknown as (e: string, l: (p: never) => void) => void;
    const timer = setTimeout(() => {
      off.call(socket, event, listener);
      fail(new Error(`no ${String(event)} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (payload: never) => {
      if (!accept(payload)) return;
      clearTimeout(timer);
      off.call(socket, event, listener);
      done(payload);
    };
    on.call(socket, event, listener);
  });
}
