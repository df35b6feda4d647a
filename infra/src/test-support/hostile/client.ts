import { io as connect } from 'socket.io-client';
import type { LiveClient } from '../client';

/** What the suite observes of one HTTP answer. */
export interface Answer {
  status: number;
  contentType: string;
  // Whatever the server sent: the checks narrow it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface SendOptions {
  /** A JSON value (serialized), or raw bytes/text sent as they are. */
  json?: unknown;
  raw?: string | Uint8Array;
  form?: FormData;
  contentType?: string;
  headers?: Record<string, string>;
}

let nextAddress = 1;
/** A fresh client address per actor (X-Forwarded-For from loopback is believed, as behind the proxy). */
export function freshAddress(): string {
  const n = nextAddress++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** An attacker's or a member's HTTP client: a cookie jar, one client address, optional Origin. */
export class Actor {
  readonly cookies = new Map<string, string>();
  id = '';
  email = '';

  constructor(
    readonly origin: string,
    public address: string = freshAddress(),
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async send(method: string, path: string, options: SendOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-forwarded-for': this.address, ...options.headers };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let body: RequestInit['body'];
    if (options.form) body = options.form;
    else if (options.raw !== undefined) body = options.raw;
    else if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.contentType) headers['content-type'] = options.contentType;
    else if (options.json !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.origin + path, { method, headers, body: body ?? null, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the checks report it
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: parsed, text };
  }

  /** A Socket.IO client carrying this actor's cookies and address (and `origin`, if given, as a browser would). */
  async socket(options: { origin?: string } = {}): Promise<LiveClient> {
    const cookie = this.cookieHeader();
    const socket: LiveClient = connect(this.origin, {
      transports: ['websocket'],
      reconnection: false,
      timeout: 5_000,
      extraHeaders: { 'x-forwarded-for': this.address, ...(cookie ? { cookie } : {}), ...(options.origin ? { origin: options.origin } : {}) },
    });
    await new Promise<void>((done, fail) => {
      socket.once('connect', () => done());
      socket.once('connect_error', (error) => {
        socket.disconnect();
        fail(error);
      });
    });
    return socket;
  }
}

/** The acknowledgement of a socket event, or `'no answer'` after `timeoutMs`. */
export function emitWithAnswer(socket: LiveClient, event: string, args: unknown[], timeoutMs = 3_000): Promise<unknown> {
  return new Promise((done) => {
    const timer = setTimeout(() => done('no answer'), timeoutMs);
    (socket.emit as unknown as (e: string, ...a: unknown[]) => void).call(socket, event, ...args, (answer: unknown) => {
      clearTimeout(timer);
      done(answer);
    });
  });
}
