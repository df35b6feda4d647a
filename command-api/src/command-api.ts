import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandContext, CommandGateway, EventStore, SessionVerifier, UserView } from '@pass/events';
import { GOAL_PASSES } from '@pass/events';
import express, { Router } from 'express';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { bootstrapAdmin } from './admin/accounts';
import { bootstrapSite } from './site/bootstrap';
import { adminRoutes } from './admin/routes';
import { chatMessageRoute, chatRoutes } from './chat/routes';
import { createInProcessGateway } from './gateway';
import { authenticate } from './http/auth';
import { apiErrorHandler } from './http/errors';
import { hotLane, type HotLane } from './http/hot-routes';
import { storeSyncedClock, systemClock, type Clock } from './kernel/clock';
import { FileAggregateSnapshots, RedisAggregateSnapshots } from './kernel/aggregate-snapshots';
import { CommandHandler } from './kernel/command-handler';
import type { CommandServices } from './kernel/services';
import { PassReservationReconciler } from './passes/reconciler';
import { creditCapturedOrder, reverseCapturedPurchase } from './payments/buy-points';
import type { PaymentProvider } from './payments/provider/port';
import { createPaymentProvider, type PaymentsConfig } from './payments/provider/factory';
import { keepWebhookRawBody } from './payments/raw-body';
import { paymentRoutes } from './payments/routes';
import { FileSessionStore } from './sessions/file-session-store';
import { ActionThrottle, DEFAULT_ACTION_LIMITS, DEFAULT_LOGIN_LIMITS, LoginThrottle, type ActionLimits, type LoginLimits } from './sessions/rate-limiter';
import { RedisSessionStore } from './sessions/redis-session-store';
import { MemorySessionStore, type SessionStore } from './sessions/session-store';
import { Sessions } from './sessions/sessions';
import { siteRoutes } from './site/routes';
import { createImageJobs, type ImageJobs } from './uploads/image-jobs';
import { AdViewTickets } from './free-points/ad-view-tickets';
import { freePointHotRoutes, freePointRoutes } from './free-points/routes';
import { memberRoutes } from './members/routes';
import { toUserView } from './members/view';
import { certificateRoutes } from './passes/certificate-routes';

export interface CommandApiConfig {
  /** Where processed images are written; served at /uploads. */
  uploadsDir: string;
  /**
   * Standalone: sessions (sessions.jsonl) and the generated development session secret live
   * here. Undefined with no redisUrl: sessions in memory (tests, benches).
   */
  dataDir?: string | undefined;
  /** Distributed mode: sessions in Redis, image jobs on BullMQ. */
  redisUrl?: string | undefined;
  /** Key prefix for everything this package keeps in Redis (sessions, queues). */
  redisPrefix?: string;
  cookieSecure: boolean;
  /** At least 32 characters; required in production (the settings enforce it). */
  sessionSecret?: string | undefined;
  admin?: { email: string; password: string } | undefined;
  loginLimits?: LoginLimits;
  /** Chat and free-point burst limits (default DEFAULT_ACTION_LIMITS); in Redis when redisUrl is set. */
  actionLimits?: ActionLimits;
  reconcileIntervalMs?: number;
  /** Supply of passes on a fresh installation (default: the goal, 1,000,000). */
  initialAvailablePasses?: number;
  /** PAYMENTS_PROVIDER and PAYPAL_* (infra settings `payments`); default: simulated, test mode (refused in production). */
  payments?: PaymentsConfig | undefined;
}

export interface CommandApiDeps {
  eventStore: EventStore;
  logger: Logger;
  config: CommandApiConfig;
  /** Image processing; default: BullMQ when config.redisUrl is set, in-process otherwise. */
  jobs?: ImageJobs;
  /** The payment provider; default: the one config.payments names (simulated when unset). */
  payments?: PaymentProvider;
  /** Business time; default: the event store's clock (`storeSyncedClock`), the local one if the store has none. */
  clock?: Clock;
}

export interface CommandApi {
  /** Every command route of spec §7 plus GET /uploads/*. Mount at the app root. */
  router: Router;
  /**
   * The hot POST routes (chat message, free point, its ticket) for a request listener in front of
   * Express (infra/src/http/fast-lane.ts); the router serves the same routes with the same functions.
   */
  hotLane: HotLane;
  gateway: CommandGateway;
  sessions: SessionVerifier;
  reconciler: PassReservationReconciler;
  payments: PaymentProvider;
  uploads: { path: '/uploads'; dir: string };
  /** For the Payments routes and webhooks: the same crediting rules as POST /api/buy-points. */
  purchases: {
    creditCapturedOrder(userId: string, orderId: string, ctx: CommandContext): Promise<{ user: UserView; points: number }>;
    reverse(userId: string, captureId: string, reason: 'refunded' | 'reversed', ctx: CommandContext): Promise<UserView>;
  };
  close(): Promise<void>;
}

async function sessionSecretFor(config: CommandApiConfig): Promise<string> {
  if (config.sessionSecret) return config.sessionSecret;
  if (!config.dataDir) return randomBytes(32).toString('base64url');
  // Development: one generated secret per data folder, so sessions survive restarts.
  const file = join(config.dataDir, 'session-secret');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32).toString('base64url');
  await mkdir(config.dataDir, { recursive: true });
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}

/** Where sessions live in Redis; other processes verify cookies against the same keys. */
const sessionKeyPrefix = (redisPrefix: string | undefined) => `${redisPrefix ?? 'pass:'}sessions:`;

/**
 * For another process (query-api) that must read the cookies command-api issued: the same
 * Redis records and secret, so a logout takes effect there at once. It only verifies.
 */
export function createRedisSessionVerifier(options: { redis: Redis; redisPrefix?: string; sessionSecret: string; cookieSecure: boolean }): SessionVerifier {
  const sessions = new Sessions({
    store: new RedisSessionStore(options.redis, sessionKeyPrefix(options.redisPrefix)),
    secret: options.sessionSecret,
    cookieSecure: options.cookieSecure,
    clock: systemClock,
  });
  return { verify: (cookieHeader) => sessions.verify(cookieHeader) };
}

async function openSessionStore(config: CommandApiConfig, redis: Redis | undefined, logger: Logger): Promise<SessionStore> {
  // Each member's requests verify their session from memory after the first; logouts are announced.
  if (redis) return RedisSessionStore.withLocalCache(redis, sessionKeyPrefix(config.redisPrefix), { logger });
  if (config.dataDir) return FileSessionStore.open(join(config.dataDir, 'sessions.jsonl'));
  return new MemorySessionStore();
}

/**
 * The command side, composed: deciders behind a cached command handler, sessions, uploads,
 * payments, the claim reconciler (started here: it runs at start and every 30 s).
 */
export async function createCommandApi(deps: CommandApiDeps): Promise<CommandApi> {
  const { eventStore, config } = deps;
  const logger = deps.logger.child({ component: 'command-api' });
  // Business time follows the event store's clock (kernel/clock.ts), unless the host passes one.
  const synced = deps.clock
    ? undefined
    : await storeSyncedClock(eventStore, {
        onSkew: (offsetMs) => logger.warn({ offsetMs }, 'this machine\'s clock is off the event store\'s; deciding on the store\'s time'),
      });
  const clock = deps.clock ?? synced!.clock;
  await mkdir(config.uploadsDir, { recursive: true });

  // One connection for sessions and login counters; BullMQ opens its own (it needs blocking commands).
  // Auto-pipelining: the session reads and limit checks of concurrent requests leave in one write.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableAutoPipelining: true }) : undefined;
  const snapshots = redis
    ? new RedisAggregateSnapshots(redis, `${config.redisPrefix ?? 'pass:'}aggregate-snapshots:`)
    : config.dataDir
      ? new FileAggregateSnapshots(join(config.dataDir, 'aggregate-snapshots'))
      : undefined;
  const handler = new CommandHandler({ eventStore, logger, ...(snapshots ? { snapshots } : {}) });
  const sessionStore = await openSessionStore(config, redis, logger);
  const secret = await sessionSecretFor(config);
  const sessions = new Sessions({ store: sessionStore, secret, cookieSecure: config.cookieSecure, clock });
  const images =
    deps.jobs ??
    createImageJobs({ redisUrl: config.redisUrl, uploadsDir: config.uploadsDir, logger, prefix: `${config.redisPrefix ?? 'pass:'}bull` });
  const payments = deps.payments ?? createPaymentProvider(config.payments ?? { provider: 'simulated' }, logger);
  const services: CommandServices = {
    handler,
    sessions,
    throttle: redis
      ? LoginThrottle.onRedis(redis, `${config.redisPrefix ?? 'pass:'}login:`, config.loginLimits ?? DEFAULT_LOGIN_LIMITS)
      : LoginThrottle.inMemory(config.loginLimits ?? DEFAULT_LOGIN_LIMITS),
    actions: redis
      ? ActionThrottle.onRedis(redis, `${config.redisPrefix ?? 'pass:'}limits:`, config.actionLimits ?? DEFAULT_ACTION_LIMITS)
      : ActionThrottle.inMemory(config.actionLimits ?? DEFAULT_ACTION_LIMITS),
    payments,
    images,
    uploadsDir: config.uploadsDir,
    logger,
    clock,
    adViews: new AdViewTickets(secret),
  };

  if (config.admin) await bootstrapAdmin({ handler, clock, logger }, config.admin);
  await bootstrapSite({ handler, clock, logger }, { initialAvailablePasses: config.initialAvailablePasses ?? GOAL_PASSES });
  const reconciler = new PassReservationReconciler({ handler, logger, clock, intervalMs: config.reconcileIntervalMs ?? 30_000 });
  reconciler.start();

  const router = Router();
  router.use(
    '/uploads',
    express.static(config.uploadsDir, { index: false, fallthrough: false, maxAge: '7d', immutable: true, dotfiles: 'deny' }),
  );
  const api = Router();
  // The app shell parses JSON already; this keeps the router usable on its own (tests, other hosts).
  const json = express.json({ limit: '100kb', verify: keepWebhookRawBody });
  api.use('/api', (req, res, next) => (req.body === undefined ? json(req, res, next) : next()));
  api.use('/api', authenticate(sessions));
  api.use(
    memberRoutes(services),
    freePointRoutes(services),
    chatRoutes(services),
    certificateRoutes(services),
    paymentRoutes(services),
    siteRoutes(services),
    adminRoutes(services),
  );
  api.use('/api', apiErrorHandler);
  router.use(api);

  let closing: Promise<void> | undefined;
  return {
    router,
    hotLane: hotLane([chatMessageRoute(services), ...freePointHotRoutes(services)], (cookieHeader) => sessions.verify(cookieHeader)),
    gateway: createInProcessGateway(services, clock),
    sessions,
    reconciler,
    payments,
    uploads: { path: '/uploads', dir: config.uploadsDir },
    purchases: {
      creditCapturedOrder: async (userId, orderId, ctx) => {
        const { user, points } = await creditCapturedOrder(services, userId, orderId, ctx);
        return { user: toUserView(user), points };
      },
      reverse: async (userId, captureId, reason, ctx) => toUserView(await reverseCapturedPurchase(services, userId, captureId, reason, ctx)),
    },
    close: () =>
      (closing ??= (async () => {
        synced?.stop();
        await reconciler.stop();
        await images.close();
        await sessionStore.close();
        await redis?.quit();
      })()),
  };
}
