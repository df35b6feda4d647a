import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { GOAL_PASSES, emailStreams, type CommandContext, type CommandGateway, type EventStore, type FastLane, type SessionNotices, type SessionVerifier, type UserView } from '@pass/events';
import express, { Router } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { ResetLinks } from './account-access/reset-links';
import { accessRoutes } from './account-access/routes';
import { bootstrapAdmin } from './admin/accounts';
import { adminRoutes } from './admin/routes';
import { chatMessageRoute, chatRoutes } from './chat/routes';
import { AdViewTickets } from './free-points/ad-view-tickets';
import { freePointFastLaneRoutes, freePointRoutes } from './free-points/routes';
import { createInProcessGateway } from './gateway/in-process';
import { authenticate } from './http/auth';
import { apiErrorHandler } from './http/errors';
import { commandFastLane } from './http/fast-lane';
import type { AggregateSnapshotStore } from './kernel/aggregate-snapshots';
import { BackgroundWork } from './kernel/background';
import { storeSyncedClock, type Clock } from './kernel/clock';
import { CommandHandler } from './kernel/command-handler';
import type { CommandServices } from './services';
import { MemoryMailer, type Mailer } from './mail/mailer';
import { memberRoutes } from './members/routes';
import { myDataRoutes } from './my-data/routes';
import { erasureRoutes } from './erasure/routes';
import { toUserView } from './members/view';
import { certificateRoutes } from './passes/certificate-routes';
import { PassReservationReconciler } from './passes/reconciler';
import { creditCapturedOrder, reverseCapturedPurchase } from './payments/buy-points';
import { createPaymentProvider } from './payments/provider/factory';
import type { PaymentProvider } from './payments/provider/port';
import { keepWebhookRawBody } from './payments/raw-body';
import { paymentRoutes } from './payments/routes';
import { DeviceCookies } from './sessions/device-cookies';
import { ActionThrottle, LoginThrottle, type ActionLimits, type LoginLimits } from './sessions/rate-limiter';
import { MemorySessionStore, type SessionStore } from './sessions/session-store';
import { Sessions } from './sessions/sessions';
import { bootstrapSite } from './site/bootstrap';
import { siteRoutes } from './site/routes';
import { InProcessImageJobs, type ImageJobs } from './uploads/image-jobs';
import { startOrphanSweep } from './uploads/orphan-sweep';
import { uploadsRouter } from './uploads/serve';

export interface CommandApiConfig {
  /** Where processed images are written; served at /uploads. */
  uploadsDir: string;
  cookieSecure: boolean;
  /** At least 32 characters; required in production (the settings enforce it). Unset: a random one (tests). */
  sessionSecret?: string | undefined;
  /**
   * Keys the names of e-mail streams (the installation's, from its key store: docs/architecture.md,
   * "Personal data"); every instance on one store must have the same. Unset: a random one (tests).
   */
  emailStreamKey?: Uint8Array | undefined;
  admin?: { email: string; password: string } | undefined;
  /** Limits of the in-memory login throttle used when no `loginThrottle` is passed. */
  loginLimits?: LoginLimits;
  /** Chat and free-point burst limits of the in-memory throttle used when no `actionThrottle` is passed. */
  actionLimits?: ActionLimits;
  reconcileIntervalMs?: number;
  /** Supply of passes on a fresh installation (default: the goal, 1,000,000). */
  initialAvailablePasses?: number;
  /** Upload files younger than this are never swept at start (default ORPHAN_GRACE_MS, an hour). */
  orphanGraceMs?: number;
  /** The site's public address, for links in mails (default http://localhost:3000). */
  siteUrl?: string;
}

/**
 * Where the command side keeps what is not an event, chosen by the host (infra's composition
 * roots: files in standalone, Redis when distributed). The host closes what it passes, after
 * `close()`. Each one not passed is in memory in this process (tests, benches); payments then
 * run on the simulated provider (test mode, refused in production).
 */
export interface CommandApiAdapters {
  sessionStore?: SessionStore;
  /** Snapshots of long streams (passes-pool); none: replayed at start. */
  snapshots?: AggregateSnapshotStore;
  loginThrottle?: LoginThrottle;
  actionThrottle?: ActionThrottle;
  images?: ImageJobs;
  payments?: PaymentProvider;
  /** Where mails go (SMTP or an outbox folder); none: kept in memory, never sent (tests). */
  mailer?: Mailer;
  /**
   * Runs after a member's erasure is stored, before it is answered: copies of their data the host
   * keeps outside the event store (standalone: the read-model snapshot file) are cleared here.
   */
  afterErasure?: (userId: string) => Promise<void>;
  /** Where a member's ended sessions are announced to their open pages (query-api's sockets); none: nowhere. */
  sessionNotices?: SessionNotices;
}

export interface CommandApiDeps extends CommandApiAdapters {
  eventStore: EventStore;
  logger: Logger;
  /** The process's Prometheus registry (the one its /metrics serves): commands by type and outcome, their latency. */
  metrics?: Registry;
  config: CommandApiConfig;
  /** Business time; default: the event store's clock (`storeSyncedClock`), the local one if the store has none. */
  clock?: Clock;
}

export interface CommandApi {
  /** Every command route of docs/product.md §7 plus GET /uploads/*. Mount at the app root. */
  router: Router;
  /**
   * The hot POST routes (chat message, free point, its ticket) for a request listener in front of
   * Express (infra/src/http/fast-lane.ts); the router serves the same routes with the same functions.
   */
  fastLane: FastLane;
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

/** Business time follows the event store's clock (kernel/clock.ts), unless the host passes one. */
async function businessClock(deps: CommandApiDeps, logger: Logger): Promise<{ clock: Clock; stop(): void }> {
  if (deps.clock) return { clock: deps.clock, stop: () => undefined };
  const synced = await storeSyncedClock(deps.eventStore, {
    onSkew: (offsetMs) => logger.warn({ offsetMs }, "this machine's clock is off the event store's; deciding on the store's time"),
  });
  return synced;
}

/** What routes and gateway share, on the host's adapters or in-memory ones. */
function commandServices(deps: CommandApiDeps, logger: Logger, clock: Clock): CommandServices & { sessionStore: SessionStore } {
  const { config } = deps;
  const secret = config.sessionSecret ?? randomBytes(32).toString('base64url');
  const emailStream = emailStreams(config.emailStreamKey ?? randomBytes(32));
  const sessionStore = deps.sessionStore ?? new MemorySessionStore();
  return {
    handler: new CommandHandler({ eventStore: deps.eventStore, logger, ...(deps.snapshots ? { snapshots: deps.snapshots } : {}), ...(deps.metrics ? { metrics: deps.metrics } : {}) }),
    sessionStore,
    sessions: new Sessions({ store: sessionStore, secret, cookieSecure: config.cookieSecure, clock, ...(deps.sessionNotices ? { notices: deps.sessionNotices } : {}) }),
    throttle: (deps.loginThrottle ?? LoginThrottle.inMemory(config.loginLimits)).keyedBy(emailStream),
    devices: new DeviceCookies({ secret, cookieSecure: config.cookieSecure, clock }),
    actions: deps.actionThrottle ?? ActionThrottle.inMemory(config.actionLimits),
    payments: deps.payments ?? createPaymentProvider({ provider: 'simulated' }, logger),
    images: deps.images ?? new InProcessImageJobs(config.uploadsDir),
    uploadsDir: config.uploadsDir,
    logger,
    clock,
    adViews: new AdViewTickets(secret),
    emailStream,
    resetLinks: new ResetLinks(secret),
    eventStore: deps.eventStore,
    mailer: deps.mailer ?? new MemoryMailer(),
    siteUrl: (config.siteUrl ?? 'http://localhost:3000').replace(/\/+$/, ''),
    background: new BackgroundWork(),
    ...(deps.afterErasure ? { afterErasure: deps.afterErasure } : {}),
  };
}

/** The /api command routes behind one JSON parser and the session check, and GET /uploads/*. */
function commandRouter(services: CommandServices): Router {
  const router = Router();
  router.use('/uploads', uploadsRouter(services.uploadsDir));
  const api = Router();
  // The app shell parses JSON already; this keeps the router usable on its own (tests, other hosts).
  const json = express.json({ limit: '100kb', verify: keepWebhookRawBody });
  api.use('/api', (req, res, next) => (req.body === undefined ? json(req, res, next) : next()));
  api.use('/api', authenticate(services.sessions));
  api.use(memberRoutes(services), accessRoutes(services), myDataRoutes(services), erasureRoutes(services), freePointRoutes(services), chatRoutes(services), certificateRoutes(services), paymentRoutes(services), siteRoutes(services), adminRoutes(services));
  api.use('/api', apiErrorHandler);
  router.use(api);
  return router;
}

/**
 * The command side, composed: deciders behind a cached command handler, sessions, uploads,
 * payments, the claim reconciler (started here: it runs at start and every 30 s) and the
 * uploads' orphan sweep (once, in the background, from start).
 */
export async function createCommandApi(deps: CommandApiDeps): Promise<CommandApi> {
  const { config } = deps;
  const logger = deps.logger.child({ component: 'command-api' });
  const time = await businessClock(deps, logger);
  await mkdir(config.uploadsDir, { recursive: true });
  const services = commandServices(deps, logger, time.clock);

  const bootstrap = { handler: services.handler, clock: services.clock, logger };
  if (config.admin) await bootstrapAdmin(bootstrap, config.admin);
  await bootstrapSite(bootstrap, { initialAvailablePasses: config.initialAvailablePasses ?? GOAL_PASSES });
  const reconciler = new PassReservationReconciler({ ...bootstrap, intervalMs: config.reconcileIntervalMs ?? 30_000 });
  reconciler.start();
  const sweep = startOrphanSweep({ uploadsDir: config.uploadsDir, store: deps.eventStore, logger, ...(config.orphanGraceMs === undefined ? {} : { graceMs: config.orphanGraceMs }) });

  let closing: Promise<void> | undefined;
  return {
    router: commandRouter(services),
    fastLane: commandFastLane([chatMessageRoute(services), ...freePointFastLaneRoutes(services)], (cookieHeader) => services.sessions.verify(cookieHeader)),
    gateway: createInProcessGateway(services, services.clock),
    sessions: services.sessions,
    reconciler,
    payments: services.payments,
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
        time.stop();
        await reconciler.stop();
        await sweep.stop();
        await services.background.settled();
        if (!deps.mailer) await services.mailer.close();
        // Only what was made here; the host closes the adapters it passed.
        if (!deps.images) await services.images.close();
        if (!deps.sessionStore) await services.sessionStore.close();
      })()),
  };
}
