import { createHash, randomUUID } from 'node:crypto';
import type { Server as HttpServer, IncomingHttpHeaders } from 'node:http';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Server, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import {
  CHAT_PANEL_MESSAGES,
  TIMERS,
  chatMessageSchema,
  type Ack,
  type ClientToServerEvents,
  type CommandGateway,
  type GatewayResult,
  type Principal,
  type RequestContext,
  type ServerToClientEvents,
  type SessionVerifier,
  type FreePointRequest,
  type FreePointResponse,
  type SendChatMessageResponse,
  type UserView,
} from '@pass/events';
import { readUpdatedMainData, type ReadModelStore } from '@pass/projector';
import { clientAddressResolver } from '../http/client-address';
import { queryMetrics } from '../metrics';
import { createSocketBudgets, tooManyEventsMessage, type BudgetStore, type EventKind, type SocketBudgets } from './budgets';
import { coalesceWrites } from './coalesce';
import { cutOff, guardConnections, type EngineConnection } from './connections';
import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from './limits';
import { memberRoom, sessionRoom } from './member-rooms';

interface SocketDeps {
  readModels: ReadModelStore;
  sessions: SessionVerifier;
  gateway: CommandGateway;
  logger: Logger;
  metrics?: Registry;
  /**
   * Distributed mode: Redis clients for `@socket.io/redis-adapter`, so broadcasts (including the
   * projector's emitter) reach every instance and connectedUsers counts every instance's visitors.
   * The subscriber must be a dedicated connection.
   */
  redisAdapter?: { pubClient: Redis; subClient: Redis; key?: string };
  /** How often each instance re-announces the count (heals after an instance dies). */
  connectedUsersRefreshMs?: number;
  /**
   * CSRF: whether the page named by a handshake's Origin (or Referer) may open a socket that
   * carries the member's cookie; refused handshakes get 403. The HTTP shell owns the rule
   * (infra/src/http/csrf.ts) and the composition root passes it here.
   */
  checkOrigin: (headers: IncomingHttpHeaders) => { ok: true } | { ok: false; reason: string };
  /** TRUST_PROXY: which X-Forwarded-For hops to believe for the client's address (default: loopback, as Express). */
  trustProxy?: string;
  /** Budgets, caps and bounds per socket and per client (limits.ts; SOCKETS_PER_CLIENT sets `socketsPerClient`). */
  limits?: Partial<SocketLimits>;
  /** Distributed: the per-client budgets in Redis, shared by every instance; else this process's memory. */
  budgetStore?: BudgetStore;
}

/** What the connected-users figure counts: a visitor is a client address, however many tabs it has open. */
const visitorOf = (address: string) => createHash('sha256').update(address).digest('base64url').slice(0, 16);

function lastFunction<T>(args: unknown[]): T | undefined {
  const last = args[args.length - 1];
  return typeof last === 'function' ? (last as T) : undefined;
}

type PassServer = Server<ClientToServerEvents, ServerToClientEvents>;
type PassSocket = Socket<ClientToServerEvents, ServerToClientEvents>;

/** Connections and disconnections within this window are announced once. */
const COUNT_DEBOUNCE_MS = 250;

/**
 * The Socket.IO server of api.ts. Reads answer the asking socket from the read models; state
 * changes go through the CommandGateway as the user of the handshake's session cookie (checked
 * again for every command, so a logout takes effect at once) — never as a user named in the
 * payload. Their results reach everyone through the projector's broadcasts.
 */
export function attachSocketServer(target: HttpServer, deps: SocketDeps): { io: PassServer; close(): Promise<void> } {
  const log = deps.logger.child({ component: 'socket' });
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...deps.limits };
  const clientAddress = clientAddressResolver(deps.trustProxy);
  const io: PassServer = new Server<ClientToServerEvents, ServerToClientEvents>(target, {
    pingTimeout: TIMERS.socketTimeoutMs,
    // Same origin as the web app; no cross-origin access.
    cors: undefined,
    // A cross-site page must not open a socket that carries the member's cookie (CSRF); a client
    // address holding its cap of sockets opens no more.
    allowRequest: (req, callback) => {
      const verdict = deps.checkOrigin(req.headers);
      if (!verdict.ok) log.warn({ origin: req.headers.origin, reason: verdict.reason }, 'cross-site socket handshake refused');
      if (!verdict.ok) return callback('cross-site request refused', false);
      // (Asked only once the server is attached, so `guard` below is set.)
      if (!guard.admits(req)) return callback('too many connections from this address', false);
      callback(null, true);
    },
  });
  const guard = guardConnections(io, {
    socketsPerClient: limits.socketsPerClient,
    maxBufferedBytes: limits.maxBufferedBytes,
    addressOf: clientAddress,
    onCut: (reason) => log.warn({ reason }, 'socket connection closed by the server'),
  });
  if (deps.redisAdapter) {
    const { pubClient, subClient, key } = deps.redisAdapter;
    io.adapter(createAdapter(pubClient, subClient, key ? { key } : {}));
  }
  // One system call per socket for the broadcasts of a tick (a chat message makes two).
  coalesceWrites(io);
  const sockets = deps.metrics ? queryMetrics(deps.metrics).sockets : undefined;
  const connectedUsers = announceConnectedUsers(io, deps, log);
  const budgets = createSocketBudgets(limits, deps.budgetStore);
  const handle = socketHandlers(deps, log, { clientAddress, budgets });

  io.on('connection', (socket) => {
    (socket.data as { visitor?: string }).visitor = visitorOf(clientAddress(socket.request));
    sockets?.inc();
    connectedUsers.changed();
    socket.on('disconnect', () => {
      sockets?.dec();
      budgets.forget(socket.id);
      connectedUsers.changed();
    });
    handle(socket);
    joinMemberRooms(socket, deps.sessions, log);
  });

  return {
    io,
    async close() {
      connectedUsers.stop();
      await io.close();
    },
  };
}

/**
 * A member's socket joins their room and their session's (member-rooms.ts), where command-api
 * announces sessions that end; a guest's joins none. Read once, from the handshake's cookie: the
 * web opens a new socket on every sign-in and sign-out.
 */
function joinMemberRooms(socket: PassSocket, sessions: SessionVerifier, log: Logger): void {
  if (!socket.handshake.headers.cookie) return;
  sessions.verify(socket.handshake.headers.cookie).then(
    ({ user }) => {
      if (user && socket.connected) void socket.join([memberRoom(user.id), sessionRoom(user.sessionId)]);
    },
    (error: unknown) => log.warn({ err: error, socket: socket.id }, 'socket session not read; its member is not told of a sign-out'),
  );
}

/** connectedUsers (visitors, not sockets), across instances: announced (debounced) on every change and re-announced locally every so often. */
function announceConnectedUsers(io: PassServer, deps: SocketDeps, log: Logger): { changed(): void; stop(): void } {
  let countTimer: NodeJS.Timeout | undefined;
  const countAll = async () => new Set((await io.fetchSockets()).map((s) => (s.data as { visitor?: string }).visitor ?? s.id)).size;
  const announceCount = (scope: 'all' | 'local') => {
    countAll()
      .then((count) => (scope === 'all' ? io.emit('connectedUsers', count) : io.local.emit('connectedUsers', count)))
      .catch((error: unknown) => log.warn({ err: error }, 'could not count connected users'));
  };
  const refresh = setInterval(() => announceCount('local'), deps.connectedUsersRefreshMs ?? 15_000);
  refresh.unref();
  return {
    changed() {
      clearTimeout(countTimer);
      countTimer = setTimeout(() => announceCount('all'), COUNT_DEBOUNCE_MS);
    },
    stop() {
      clearInterval(refresh);
      clearTimeout(countTimer);
    },
  };
}

/** What the handlers share with the server: the client address of a request, and the budgets every event spends from. */
interface Guards {
  clientAddress: (req: PassSocket['request']) => string;
  budgets: SocketBudgets;
}

/** How a socket's reads and commands are answered: reads from the read models, commands through the gateway as the handshake's member. */
function socketActions(deps: SocketDeps, log: Logger, guards: Guards) {
  const principalOf = async (socket: PassSocket): Promise<Principal | null> =>
    (await deps.sessions.verify(socket.handshake.headers.cookie)).user;
  const addresses = new WeakMap<PassSocket, string>();
  const addressOf = (socket: PassSocket) => {
    let address = addresses.get(socket);
    if (address === undefined) addresses.set(socket, (address = guards.clientAddress(socket.request)));
    return address;
  };
  const contextOf = (socket: PassSocket): RequestContext => ({
    correlationId: randomUUID(),
    ...(socket.handshake.headers.cookie ? { cookieHeader: socket.handshake.headers.cookie } : {}),
    clientAddress: addressOf(socket),
  });
  const answer = <T>(ack: Ack<T> | undefined, result: GatewayResult<T>) => {
    if (typeof ack !== 'function') return;
    if (result.ok) return ack({ ok: true, data: result.data });
    // A 429's wait goes with it: the web's toast says how long.
    ack({ ok: false, status: result.status, error: result.error, ...(result.retryAfterSeconds ? { retryAfterSeconds: result.retryAfterSeconds } : {}) });
  };
  /**
   * Every event spends from its socket's and its client's budget before any work is done. Past
   * it a command is answered 429 with the wait (a read has no acknowledgement in api.ts: it goes
   * unanswered); a socket far past its own budget is cut off.
   */
  const spend = (socket: PassSocket, kind: EventKind, ack: Ack<never> | undefined, work: () => void) => {
    guards.budgets.spend(kind, socket.id, addressOf(socket)).then(
      (spent) => {
        if (spent.allowed) return work();
        const conn = socket.conn as unknown as EngineConnection;
        if (spent.abusive) {
          if (conn.readyState !== 'closed') log.warn({ kind, socket: socket.id }, 'socket cut off: events far past its budget');
          return cutOff(conn);
        }
        if (kind === 'command') answer(ack, { ok: false, status: 429, error: tooManyEventsMessage(spent.waitSeconds), retryAfterSeconds: spent.waitSeconds });
      },
      (error: unknown) => {
        // The per-client count lives in Redis in the distributed layout; it falls back to memory on its own, so this is unexpected.
        log.warn({ err: error, kind }, 'socket budget not counted; event let through');
        work();
      },
    );
  };
  return {
    answer,
    spend,
    mainData: async () => readUpdatedMainData(await deps.readModels.active()),
    command: <T>(socket: PassSocket, name: string, ack: Ack<T> | undefined, run: (user: Principal, ctx: RequestContext) => Promise<GatewayResult<T>>) => {
      (async () => {
        const user = await principalOf(socket);
        if (!user) return answer(ack, { ok: false, status: 401, error: 'Please join first' });
        return answer(ack, await run(user, contextOf(socket)));
      })().catch((error: unknown) => {
        log.error({ err: error, event: name }, 'socket command failed');
        answer(ack, { ok: false, status: 503, error: 'Service unavailable, try again shortly' });
      });
    },
    read: (socket: PassSocket, name: string, run: () => Promise<void>) =>
      spend(socket, 'read', undefined, () => {
        run().catch((error: unknown) => log.warn({ err: error, event: name, socket: socket.id }, 'socket read failed'));
      }),
  };
}

/** The client→server events of api.ts, registered on each connected socket. */
function socketHandlers(deps: SocketDeps, log: Logger, guards: Guards): (socket: PassSocket) => void {
  const { answer, spend, mainData, command, read } = socketActions(deps, log, guards);
  // A command's handler runs once its socket and client have budget for it.
  const budgeted = (socket: PassSocket, handle: (...args: unknown[]) => void) => (...args: unknown[]) =>
    spend(socket, 'command', lastFunction<Ack<never>>(args), () => handle(...args));
  return (socket) => {
    socket.on('getUpdatedMainData', () => read(socket, 'getUpdatedMainData', async () => void socket.emit('updatedMainData', await mainData())));
    socket.on('getGlobalMember', () =>
      read(socket, 'getGlobalMember', async () => {
        const post = (await (await deps.readModels.active()).posts())[0];
        if (post) socket.emit('globalMember', post);
      }),
    );
    socket.on('getChatMessages', () =>
      read(socket, 'getChatMessages', async () => void socket.emit('chatMessages', await (await deps.readModels.active()).chat(CHAT_PANEL_MESSAGES))),
    );

    // The acknowledgement is the last argument when it is a function, whatever came before it
    // (a client that sends no draft, or junk before the callback, still gets its answer).
    socket.on(
      'sendChatMessage',
      budgeted(socket, (...args) => {
        const ack = lastFunction<Ack<SendChatMessageResponse>>(args);
        const draft = typeof args[0] === 'function' ? undefined : args[0];
        const parsed = chatMessageSchema.safeParse(draft);
        if (!parsed.success) {
          answer(ack, { ok: false, status: 400, error: parsed.error.issues[0]?.message ?? 'Invalid message' });
          return;
        }
        // The client's request id makes a retried send idempotent (command-api checks it).
        const requestId = (draft as { requestId?: unknown }).requestId;
        const request = { message: parsed.data.message, ...(requestId === undefined ? {} : { requestId: requestId as string }) };
        command(socket, 'sendChatMessage', ack, (user, ctx) => deps.gateway.sendChatMessage(user, request, ctx));
      }),
    );
    // The ad-view ticket is checked by command-api; anything else sent is passed on as it is and refused there.
    socket.on(
      'increaseChatCount',
      budgeted(socket, (...args) => {
        const request = typeof args[0] === 'object' && args[0] !== null ? (args[0] as FreePointRequest) : { ticket: '' };
        command(socket, 'increaseChatCount', lastFunction<Ack<FreePointResponse>>(args), (user, ctx) => deps.gateway.awardFreePoint(user, request, ctx));
      }),
    );
    socket.on(
      'decreaseChatCount',
      budgeted(socket, (...args) =>
        command(socket, 'decreaseChatCount', lastFunction<Ack<{ user: UserView }>>(args), async (user, ctx) => {
          const current = await deps.gateway.currentUser(user, ctx);
          return current.ok ? { ok: true, data: { user: current.data } } : current;
        }),
      ),
    );
  };
}
