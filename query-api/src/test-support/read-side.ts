import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { io as connect, type Socket } from 'socket.io-client';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import type { ClientToServerEvents, EventStore, ServerToClientEvents } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { appendEvents } from '@pass/projector/test-support';
import { recordedDay } from '@pass/projector/test-support';
import { broadcastPublisher, createMemoryReadModels, createProjectionRuntime, localReplays, memoryReplayStates, type ProjectionRuntime, type Projector, type ReadModelStore, type ReplayControl } from '@pass/projector';
import { createOpsRouter, readSideChecks } from '../ops/router';
import { createQueryReads } from '../query-api';
import { attachSocketServer } from '../socket/server';
import type { SocketLimits } from '../socket/limits';

export const ADMIN = { email: 'admin@example.com', password: 'admin-pass-123' };

/** A handshake origin check that lets every page in: the shell's CSRF check is infra's (tested there). */
export const anyOrigin = () => ({ ok: true }) as const;

export interface Client {
  cookies: Map<string, string>;
  cookieHeader(): string;
  // Parsed JSON of whichever route was called; the tests assert its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string; headers: Headers }>;
}

export interface ReadSide {
  url: string;
  store: EventStore;
  readModels: ReadModelStore;
  /** The live projector (changes after a rebuild). */
  readonly projector: Projector;
  runtime: ProjectionRuntime;
  commandApi: CommandApi;
  registry: Registry;
  client(): Client;
  /** A WebSocket client with `client`'s cookies, from `address` (X-Forwarded-For, believed from loopback) when given. */
  socket(client?: Client, options?: { address?: string }): Promise<Socket<ServerToClientEvents, ClientToServerEvents>>;
  close(): Promise<void>;
}

/**
 * The standalone read side over real HTTP and Socket.IO, with the real command API beside it
 * (sessions, commands) and an in-memory PGlite store: what infra composes, minus the web app.
 */
export interface ReadSideOptions {
  socketLimits?: Partial<SocketLimits>;
  /** The store the replays read (a test may hold their reads); default the site's. */
  replayStore?: (store: EventStore) => EventStore;
  /** The replays, when not in this process's memory (Redis and a worker, say). */
  replays?: (store: EventStore) => Promise<ReplayControl>;
}

export async function startReadSide(options: ReadSideOptions = {}): Promise<ReadSide> {
  const logger = pino({ level: 'silent' });
  const store = await openPgliteEventStore();
  const uploadsDir = await mkdtemp(join(tmpdir(), 'pass-qa-'));
  const commandApi = await createCommandApi({
    eventStore: store,
    logger,
    config: { uploadsDir, cookieSecure: false, admin: ADMIN, sessionSecret: 's'.repeat(40) },
  });
  const readModels = createMemoryReadModels();
  const registry = new Registry();
  const app = express();
  const server: Server = createServer(app);
  const sockets = attachSocketServer(server, {
    readModels,
    sessions: commandApi.sessions,
    gateway: commandApi.gateway,
    logger,
    metrics: registry,
    connectedUsersRefreshMs: 60_000,
    checkOrigin: anyOrigin,
    ...(options.socketLimits ? { limits: options.socketLimits } : {}),
  });
  const runtime = createProjectionRuntime({ eventStore: store, readModels, publisher: broadcastPublisher(sockets.io), logger, metrics: registry, dropDelayMs: 100 });
  // Replays into memory, in this process, as in standalone; `replayStore` lets a test hold their reads.
  const replays: ReplayControl =
    (await options.replays?.(store)) ?? localReplays({ eventStore: options.replayStore?.(store) ?? store, states: memoryReplayStates(), keyspaces: createMemoryReadModels(), logger, live: () => readModels.active() });
  app.use(createOpsRouter({ registry, logger, checks: readSideChecks({ readModels, eventStore: store, projector: runtime }) }));
  app.use(
    createQueryReads({ readModels, sessions: commandApi.sessions, gateway: commandApi.gateway, eventStore: store, logger, metrics: registry, projections: runtime, replays }).router,
  );
  app.use(commandApi.router);
  await runtime.start();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const opened: Socket[] = [];

  const client = (): Client => {
    const cookies = new Map<string, string>();
    const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return {
      cookies,
      cookieHeader,
      async request(method, path, body) {
        const cookie = cookieHeader();
        const res = await fetch(url + path, {
          method,
          headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie ? { cookie } : {}) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        for (const line of res.headers.getSetCookie()) {
          const pair = line.split(';')[0]!;
          const eq = pair.indexOf('=');
          cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          parsed = text;
        }
        return { status: res.status, body: parsed, text, headers: res.headers };
      },
    };
  };

  return {
    url,
    store,
    readModels,
    get projector() {
      return runtime.live();
    },
    runtime,
    commandApi,
    registry,
    client,
    async socket(c, socketOptions = {}) {
      const cookie = c?.cookieHeader();
      const headers = { ...(cookie ? { cookie } : {}), ...(socketOptions.address ? { 'x-forwarded-for': socketOptions.address } : {}) };
      const s: Socket<ServerToClientEvents, ClientToServerEvents> = connect(url, {
        transports: ['websocket'],
        reconnection: false,
        extraHeaders: headers,
      });
      opened.push(s);
      await new Promise<void>((done, fail) => {
        s.once('connect', () => done());
        s.once('connect_error', fail);
      });
      return s;
    },
    async close() {
      for (const s of opened) s.disconnect();
      await replays.close();
      await runtime.stop();
      await sockets.close();
      await commandApi.close();
      await store.close();
      await rm(uploadsDir, { recursive: true, force: true });
    },
  };
}

/** A read side that has projected the recorded day (projector/src/test-support/recorded-events). */
export async function startRecordedReadSide(options: ReadSideOptions = {}): Promise<ReadSide> {
  const side = await startReadSide(options);
  await appendEvents(side.store, recordedDay);
  await side.projector.settled();
  return side;
}
