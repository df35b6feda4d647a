import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emailStreams, type EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import express from 'express';
import { pino } from 'pino';
import { createCommandApi, type CommandApi, type CommandApiAdapters, type CommandApiConfig } from '../command-api';
import { systemClock, type Clock } from '../kernel/clock';
import { AdViewTickets } from '../free-points/ad-view-tickets';
import type { ActionLimits } from '../sessions/rate-limiter';

export interface Harness {
  url: string;
  api: CommandApi;
  store: EventStore;
  uploadsDir: string;
  /** A browser: keeps its own cookies. */
  browser(): Browser;
  /**
   * An ad-view ticket for `userId` whose countdown started `watchedMs` before the API's clock
   * reads now, signed with the harness's session secret: what a member who watched it holds.
   */
  adViewTicket(userId: string, watchedMs?: number): string;
  close(): Promise<void>;
}

// Test bodies are whatever JSON the API answered; assertions narrow them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface Browser {
  cookies: Map<string, string>;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; headers: Headers }>;
  form(path: string, form: FormData): Promise<{ status: number; body: Json; headers: Headers }>;
}

export const ADMIN = { email: 'admin@example.com', password: 'admin-pass-123' };
/** The harness's installation key for e-mail stream names, and the names it gives. */
export const TEST_EMAIL_STREAM_KEY = Buffer.alloc(32, 0x5e);
export const testEmailStream = emailStreams(TEST_EMAIL_STREAM_KEY);

/** Tests of other rules send bursts a human would not; tests of the limits pass `config.actionLimits`. */
export const RELAXED_ACTION_LIMITS: ActionLimits = {
  chatPerUser: { max: 10_000, windowMs: 1_000 },
  chatPerIp: { max: 10_000, windowMs: 1_000 },
  freePointPerUser: { max: 10_000, windowMs: 1_000 },
  freePointPerIp: { max: 10_000, windowMs: 1_000 },
  ordersPerUser: { max: 10_000, windowMs: 1_000 },
  passwordResetPerEmail: { max: 10_000, windowMs: 1_000 },
  passwordResetPerIp: { max: 10_000, windowMs: 1_000 },
};

export interface HarnessOptions {
  config?: Partial<CommandApiConfig>;
  /** Adapters the test composes itself (Redis, files, a payment provider); the rest in memory. Closed by `close()`. */
  adapters?: CommandApiAdapters;
  clock?: Clock;
  store?: EventStore;
}

/** The command API over real HTTP on a free port, with an in-memory PGlite store. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const store = options.store ?? (await openPgliteEventStore());
  const ownUploads = !options.config?.uploadsDir;
  const uploadsDir = options.config?.uploadsDir ?? (await mkdtemp(join(tmpdir(), 'pass-uploads-')));
  const sessionSecret = options.config?.sessionSecret ?? 'x'.repeat(40);
  const api = await createCommandApi({
    eventStore: store,
    logger: pino({ level: 'silent' }),
    config: { cookieSecure: false, admin: ADMIN, actionLimits: RELAXED_ACTION_LIMITS, emailStreamKey: TEST_EMAIL_STREAM_KEY, ...options.config, sessionSecret, uploadsDir },
    ...options.adapters,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return serveHarness(api, {
    store,
    uploadsDir,
    sessionSecret,
    ...(options.clock ? { clock: options.clock } : {}),
    close: async () => {
      await options.adapters?.images?.close();
      await options.adapters?.sessionStore?.close();
      if (!options.store) await store.close();
      if (ownUploads) await rm(uploadsDir, { recursive: true, force: true });
    },
  });
}

/**
 * A command API composed elsewhere (infra's composition roots), served the same way. `close`
 * runs after the API and the server have closed.
 */
export async function serveHarness(
  api: CommandApi,
  parts: { store: EventStore; uploadsDir: string; sessionSecret?: string; clock?: Clock; close?: () => Promise<void> },
): Promise<Harness> {
  const app = express();
  app.use(api.router);
  const server: Server = createServer(app);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const browser = (): Browser => {
    const cookies = new Map<string, string>();
    const send = async (method: string, path: string, init: { body?: RequestInit['body']; headers?: Record<string, string> }) => {
      const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(url + path, { method, ...init, headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        const value = pair!.slice(eq + 1);
        if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
        else cookies.set(name, value);
      }
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      return { status: res.status, body, headers: res.headers };
    };
    return {
      cookies,
      request: (method, path, body) =>
        send(method, path, body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      form: (path, form) => send('POST', path, { body: form }),
    };
  };

  return {
    url,
    api,
    store: parts.store,
    uploadsDir: parts.uploadsDir,
    browser,
    adViewTicket: (userId, watchedMs = 29_000) => {
      if (!parts.sessionSecret) throw new Error('This harness does not know the session secret that signs tickets');
      const now = (parts.clock ?? systemClock)().getTime();
      return new AdViewTickets(parts.sessionSecret).issue(userId, new Date(now - watchedMs)).ticket;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await api.close();
      await parts.close?.();
    },
  };
}
