import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventStore } from '@pass/events';
import {
  ActionThrottle,
  BullMqImageJobs,
  FileAggregateSnapshots,
  FileSessionStore,
  InProcessImageJobs,
  LoginThrottle,
  OutboxMailer,
  RedisAggregateSnapshots,
  RedisSessionStore,
  SmtpMailer,
  commandApiRedisKeys,
  createCommandApi,
  createPaymentProvider,
  type CommandApi,
  type CommandApiAdapters,
  type Mailer,
} from '@pass/command-api';
import { redisRoomEmitter } from '@pass/projector';
import { socketSessionNotices, type RoomBroadcaster } from '@pass/query-api';
import type { Settings } from '../config/settings';
import { emailStreamKeyOf } from './email-stream-key';
import type { Resources } from './lifecycle';
import { closeRedis, openRedis, redisKeys } from './redis';

export interface CommandSide {
  commandApi: CommandApi;
  /** Distributed: the connection command-api's adapters share (readiness checks it). */
  redis: Redis | undefined;
}

/**
 * Without SESSION_SECRET (standalone only; the services require it) one secret is generated per
 * data folder and kept there, so sessions survive restarts.
 */
async function sessionSecretFor(settings: Settings): Promise<string> {
  if (settings.sessionSecret) return settings.sessionSecret;
  const file = join(settings.dataDir, 'session-secret');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32).toString('base64url');
  await mkdir(settings.dataDir, { recursive: true });
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * Where image jobs run: `in-process` inside the request (standalone), or `image-worker`: queued
 * on BullMQ for the image-worker processes (distributed command-api, which then runs no worker:
 * a slow or crashing re-encode never takes a web process's CPU or memory).
 */
export type ImageJobsPlacement = 'in-process' | 'image-worker';

/**
 * With REDIS_URL: sessions, login and action limits and pool snapshots in Redis under
 * REDIS_PREFIX, shared by every instance. One connection serves them (auto-pipelined: the
 * session reads and limit checks of concurrent requests leave in one write); BullMQ opens its
 * own (it needs blocking commands).
 */
async function redisAdapters(settings: Settings, redis: Redis, logger: Logger, images: ImageJobsPlacement): Promise<CommandApiAdapters> {
  const keys = commandApiRedisKeys(settings.redisPrefix);
  // Ended sessions reach the member's sockets on every query-api through their Socket.IO adapter's channel.
  const rooms = redisRoomEmitter(redis, { key: redisKeys(settings.redisPrefix).socketIo }) as unknown as RoomBroadcaster;
  return {
    sessionNotices: socketSessionNotices(() => rooms, (error) => logger.warn({ err: error }, 'sign-out notice not published')),
    // Each instance verifies a member's requests from memory after the first; logouts are announced.
    sessionStore: await RedisSessionStore.withLocalCache(redis, keys.sessions, { logger }),
    snapshots: new RedisAggregateSnapshots(redis, keys.aggregateSnapshots),
    loginThrottle: LoginThrottle.onRedis(redis, keys.loginLimits),
    actionThrottle: ActionThrottle.onRedis(redis, keys.actionLimits),
    images:
      images === 'image-worker'
        ? new BullMqImageJobs({ redisUrl: settings.redisUrl!, uploadsDir: settings.uploadsDir, logger, prefix: keys.imageJobs, runWorker: false })
        : new InProcessImageJobs(settings.uploadsDir),
  };
}

/** Standalone: sessions and pool snapshots in the data folder (they survive restarts), limits and image jobs in this process. */
async function localAdapters(settings: Settings): Promise<CommandApiAdapters> {
  return {
    sessionStore: await FileSessionStore.open(join(settings.dataDir, 'sessions.jsonl')),
    snapshots: new FileAggregateSnapshots(join(settings.dataDir, 'aggregate-snapshots')),
    loginThrottle: LoginThrottle.inMemory(),
    actionThrottle: ActionThrottle.inMemory(),
    images: new InProcessImageJobs(settings.uploadsDir),
  };
}

/** SMTP with SMTP_URL; else each mail is a file in DATA_DIR/outbox (standalone, or a deployment that has not set up mail yet). */
export function mailerFor(settings: Settings): Mailer {
  return settings.smtpUrl ? new SmtpMailer(settings.smtpUrl, settings.mailFrom) : new OutboxMailer(settings.outboxDir, settings.mailFrom);
}

/**
 * command-api from the settings, on the adapters they call for (Redis with REDIS_URL, the data
 * folder otherwise) and the payment provider they name (simulated test mode, refused in
 * production, or PayPal). Everything opened is closed by `resources`, command-api first.
 */
/**
 * `registry`: the process's Prometheus registry (its /metrics), for the commands' counter and
 * latency histogram. `images`: where image jobs run (default in this process).
 */
export async function composeCommandApi(
  settings: Settings,
  eventStore: EventStore,
  logger: Logger,
  resources: Resources,
  registry?: Registry,
  images: ImageJobsPlacement = 'in-process',
  hooks: Pick<CommandApiAdapters, 'afterErasure' | 'sessionNotices'> = {},
): Promise<CommandSide> {
  // First: a store written before keyed e-mail stream names is refused before anything opens.
  const emailStreamKey = await emailStreamKeyOf(eventStore);
  const log = logger.child({ component: 'command-api' });
  const redis = settings.redisUrl ? openRedis(settings.redisUrl, 'command-api', logger, { enableAutoPipelining: true }) : undefined;
  if (redis) resources.add(() => closeRedis(redis));
  const adapters = redis ? await redisAdapters(settings, redis, log, images) : await localAdapters(settings);
  const mailer = mailerFor(settings);
  // One line, no address: where reset links go (an operator must look in the outbox without SMTP_URL).
  if (!settings.smtpUrl && settings.nodeEnv === 'production') log.warn({ mail: 'outbox' }, `${mailer.describe}: members asking for a reset link get no mail until SMTP_URL is set`);
  else log.info({ mail: settings.smtpUrl ? 'smtp' : 'outbox' }, mailer.describe);
  resources.add(async () => {
    await adapters.images?.close();
    await adapters.sessionStore?.close();
    await mailer.close();
  });
  const commandApi = await createCommandApi({
    eventStore,
    logger,
    ...(registry ? { metrics: registry } : {}),
    ...adapters,
    ...hooks,
    mailer,
    payments: createPaymentProvider({ ...settings.payments, nodeEnv: settings.nodeEnv }, log),
    config: {
      uploadsDir: settings.uploadsDir,
      cookieSecure: settings.cookieSecure,
      sessionSecret: await sessionSecretFor(settings),
      emailStreamKey,
      admin: settings.admin,
      initialAvailablePasses: settings.initialAvailablePasses,
      siteUrl: settings.siteUrl,
    },
  });
  resources.add(() => commandApi.close());
  return { commandApi, redis };
}
