import { resolve } from 'node:path';
import { z } from 'zod';
import { GOAL_PASSES, SOCIAL_NETWORKS, type SocialLink, type SocialNetworkId } from '@pass/events';
import { originsOfSiteAddress } from './site-address';

/**
 * Every setting of every process, parsed once at the edge. A bad value stops start-up with one
 * line naming the variable (see `loadSettings`).
 */
// 0 asks the OS for a free port (tests).
const port = z.coerce.number({ error: 'expected a port number (0-65535)' }).int().min(0).max(65_535);
const httpUrl = z.url({ protocol: /^https?$/, message: 'expected an http(s):// URL' }).transform((u) => u.replace(/\/+$/, ''));
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** A social link: an https:// address, or unset (empty counts as unset, as a compose file leaves it). */
const socialUrl = z
  .string()
  .transform((v) => v.trim())
  .pipe(z.union([z.literal(''), z.url({ protocol: /^https$/, message: 'expected an https:// URL' })]))
  .optional()
  .transform((v) => v || undefined);

/** The set social links, in the about page's order. */
function socialLinksOf(urls: Record<SocialNetworkId, string | undefined>): SocialLink[] {
  return SOCIAL_NETWORKS.flatMap(({ id }) => (urls[id] ? [{ network: id, url: urls[id] }] : []));
}

export const settingsSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: port.default(3000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Root of everything the standalone process keeps on disk. */
    DATA_DIR: z.string().min(1).default('./data'),
    /**
     * `pglite:<dir>` (default `pglite:<DATA_DIR>/events`), `pglite:memory`, `postgres://…`,
     * `esdb://…` / `kurrentdb://…`.
     */
    EVENT_STORE_URL: z
      .string()
      .regex(/^(pglite:.+|postgres(ql)?:\/\/.+|(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover):\/\/.+)$/, {
        message: 'expected pglite:<dir>, pglite:memory, postgres://…, esdb://… or kurrentdb://…',
      })
      .optional(),
    /** Set to use Redis for read models, jobs and Socket.IO fan-out (distributed mode). */
    REDIS_URL: z.string().regex(/^rediss?:\/\/.+/, { message: 'expected redis://host:port' }).optional(),
    /**
     * The read models on a Redis Cluster (projector and query-api): its nodes as host:port,
     * comma-separated (any few of them; the client learns the rest). REDIS_URL still holds
     * sessions, jobs and Socket.IO.
     */
    REDIS_CLUSTER_NODES: z
      .string()
      .transform((v) => v.split(',').map((n) => n.trim()).filter(Boolean))
      .pipe(z.array(z.string().regex(/^[\w.-]+:\d{1,5}$/, { message: 'expected host:port,host:port,…' })).min(1, { message: 'expected host:port,host:port,…' }))
      .transform((nodes) => nodes.map((node) => ({ host: node.slice(0, node.lastIndexOf(':')), port: Number(node.slice(node.lastIndexOf(':') + 1)) })))
      .optional(),
    UPLOADS_DIR: z.string().min(1).optional(),
    WEB_DIST_DIR: z.string().min(1).default('./web/dist'),
    /** Signs session cookies. Required in production; development generates one per data folder. */
    SESSION_SECRET: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
    /** Cookies get the Secure flag; on by default in production. */
    COOKIE_SECURE: bool.optional(),
    ADMIN_EMAIL: z.email().optional(),
    ADMIN_PASSWORD: z.string().min(8).max(30).optional(),
    PAYMENTS_PROVIDER: z.enum(['simulated', 'paypal']).default('simulated'),
    PAYPAL_CLIENT_ID: z.string().min(1).optional(),
    PAYPAL_CLIENT_SECRET: z.string().min(1).optional(),
    PAYPAL_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
    PAYPAL_WEBHOOK_ID: z.string().min(1).optional(),
    /** The project's social links on the about page (SOCIAL_NETWORKS); a network left unset is not shown. */
    SOCIAL_INSTAGRAM_URL: socialUrl,
    SOCIAL_X_URL: socialUrl,
    SOCIAL_YOUTUBE_URL: socialUrl,
    /** Key of the third-party ad network; without it the app shows its own house banners. */
    AD_NETWORK_KEY: z.string().min(1).optional(),
    /** Host of the ad network's `/{key}/invoke.js` (the web build's VITE_AD_NETWORK_HOST); allowed by the CSP. */
    AD_NETWORK_HOST: z
      .string()
      .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, { message: 'expected a host name such as www.example.com' })
      .default('www.highperformanceformat.com'),
    /**
     * Other origins allowed to send cookie-authenticated writes and open sockets (CSRF check),
     * comma-separated; the site's own origin is always allowed.
     */
    ALLOWED_ORIGINS: z
      .string()
      .transform((v) => v.split(',').map((u) => u.trim()).filter(Boolean))
      .pipe(z.array(httpUrl))
      .default([]),
    /**
     * The public site's address as Caddy takes it (infra/deploy): its origin is allowed like
     * ALLOWED_ORIGINS'. `:80` and other host-less forms add none (see site-address.ts).
     */
    SITE_ADDRESS: z.string().optional(),
    /**
     * Where mails go (password reset links): `smtp://user:pass@host:587` (STARTTLS when the
     * server offers it) or `smtps://user:pass@host:465`. Unset: each mail is written to
     * DATA_DIR/outbox as an .eml file, and the start-up log says so.
     */
    SMTP_URL: z.string().regex(/^smtps?:\/\/[^/\s]+/, { message: 'expected smtp://user:pass@host:port or smtps://…' }).optional(),
    /** The mails' From: `Pass <no-reply@example.org>` or an address (default no-reply@ the site's host). */
    MAIL_FROM: z.string().min(3).max(200).optional(),
    /** Passes available on a fresh installation (first start only; the admin edits it later). */
    INITIAL_AVAILABLE_PASSES: z.coerce.number({ error: 'expected a whole number of passes' }).int().min(0).default(GOAL_PASSES),
    // ---- distributed mode (one process per service)
    /** Prefix of every Redis key the processes share (sessions, jobs, read models, Socket.IO). */
    REDIS_PREFIX: z.string().regex(/^[\w.:-]{1,64}$/, { message: 'expected letters, digits, _ . : - (up to 64)' }).default('pass:'),
    /** Where query-api forwards socket commands and the proxy sends state changes. */
    COMMAND_API_URL: httpUrl.optional(),
    /** The query-api instances behind the proxy, comma-separated. */
    QUERY_API_URLS: z
      .string()
      .transform((v) => v.split(',').map((u) => u.trim()).filter(Boolean))
      .pipe(z.array(httpUrl).min(1, { message: 'expected at least one http(s) URL' }))
      .optional(),
    /**
     * Which X-Forwarded-For hops to believe (Express "trust proxy"): `loopback` (default), a
     * list of addresses/CIDRs, or a hop count. Behind the proxy of infra/deploy, set it to the
     * proxy's network so login limits count per client, not per proxy.
     */
    TRUST_PROXY: z.string().min(1).default('loopback'),
    /** Socket.IO connections one client address may hold open on one process (standalone, query-api). */
    SOCKETS_PER_CLIENT: z.coerce.number({ error: 'expected a whole number of sockets' }).int().min(1).default(10),
    /** The projector process's status and metrics port (/healthz, /readyz, /metrics, /status). */
    PROJECTOR_PORT: port.default(3002),
    /** The image-worker process's status and metrics port (/healthz, /readyz, /metrics). */
    IMAGE_WORKER_PORT: port.default(3003),
    /**
     * Distributed: the projectors' lease. Its holder leads; a standby takes over within this
     * long of the leader's loss (renewed every third of it).
     */
    PROJECTOR_LEASE_MS: z.coerce.number({ error: 'expected a number of milliseconds' }).int().min(300).default(5_000),
    /**
     * Mixed into the projection fingerprint: a new value makes a projector of the group build a
     * new keyspace beside the readers' and take them over once caught up, as changed projection
     * code does (a re-projection without a code change).
     */
    PROJECTION_VERSION: z.string().max(100).optional(),
    /** This projector's name in the lease, /status and logs (default: host name and process id). */
    PROJECTOR_INSTANCE: z.string().regex(/^[\w.-]{1,100}$/, 'letters, digits, dots, dashes or underscores').optional(),
    /** /readyz of a process running the projector answers 503 while it is behind by more than this many events… */
    READY_MAX_LAG_EVENTS: z.coerce.number({ error: 'expected a whole number of events' }).int().min(0).default(10_000),
    /** …or while its oldest unprojected event has waited more than this many seconds. */
    READY_MAX_LAG_SECONDS: z.coerce.number({ error: 'expected a number of seconds' }).min(0).default(30),
    /**
     * Distributed: the projector's heartbeat lives this long in Redis (it beats four times as
     * often), and query-api's /readyz answers 503 once none is left.
     */
    READY_MAX_HEARTBEAT_SECONDS: z.coerce.number({ error: 'expected a number of seconds' }).min(1).default(10),
  })
  // What a process must have set (a session secret, PayPal's credentials, production rules)
  // depends on what it runs: each entry point names it (services/requirements.ts), so the
  // projector and the proxy are not held to the secrets they never use.
  .superRefine((env, ctx) => {
    if ((env.ADMIN_EMAIL && !env.ADMIN_PASSWORD) || (!env.ADMIN_EMAIL && env.ADMIN_PASSWORD)) {
      ctx.addIssue({ code: 'custom', path: [env.ADMIN_EMAIL ? 'ADMIN_PASSWORD' : 'ADMIN_EMAIL'], message: 'ADMIN_EMAIL and ADMIN_PASSWORD go together' });
    }
  })
  .transform((env) => {
    const dataDir = resolve(env.DATA_DIR);
    // Links in mails: the site's public address (SITE_ADDRESS's first origin, else the first
    // ALLOWED_ORIGINS), else this process on localhost (development).
    const siteUrl = originsOfSiteAddress(env.SITE_ADDRESS)[0] ?? env.ALLOWED_ORIGINS[0] ?? `http://localhost:${env.PORT || 3000}`;
    return {
      nodeEnv: env.NODE_ENV,
      host: env.HOST,
      port: env.PORT,
      logLevel: env.LOG_LEVEL,
      dataDir,
      eventStoreUrl: env.EVENT_STORE_URL ?? `pglite:${resolve(dataDir, 'events')}`,
      redisUrl: env.REDIS_URL,
      redisClusterNodes: env.REDIS_CLUSTER_NODES,
      uploadsDir: resolve(env.UPLOADS_DIR ?? resolve(dataDir, 'uploads')),
      /** Where mails are written without SMTP_URL (`npm run outbox` reads it). */
      outboxDir: resolve(dataDir, 'outbox'),
      webDistDir: resolve(env.WEB_DIST_DIR),
      sessionSecret: env.SESSION_SECRET,
      cookieSecure: env.COOKIE_SECURE ?? env.NODE_ENV === 'production',
      admin: env.ADMIN_EMAIL && env.ADMIN_PASSWORD ? { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } : undefined,
      payments: {
        provider: env.PAYMENTS_PROVIDER,
        paypal:
          env.PAYPAL_CLIENT_ID && env.PAYPAL_CLIENT_SECRET
            ? {
                clientId: env.PAYPAL_CLIENT_ID,
                clientSecret: env.PAYPAL_CLIENT_SECRET,
                environment: env.PAYPAL_ENVIRONMENT,
                webhookId: env.PAYPAL_WEBHOOK_ID,
              }
            : undefined,
      },
      // As set, for the requirement checks (`payments.paypal` needs both credentials to exist).
      paypalClientId: env.PAYPAL_CLIENT_ID,
      paypalClientSecret: env.PAYPAL_CLIENT_SECRET,
      paypalWebhookId: env.PAYPAL_WEBHOOK_ID,
      adNetworkKey: env.AD_NETWORK_KEY,
      socialLinks: socialLinksOf({ instagram: env.SOCIAL_INSTAGRAM_URL, x: env.SOCIAL_X_URL, youtube: env.SOCIAL_YOUTUBE_URL }),
      adNetworkHost: env.AD_NETWORK_HOST,
      allowedOrigins: [...new Set([...env.ALLOWED_ORIGINS, ...originsOfSiteAddress(env.SITE_ADDRESS)])],
      siteUrl,
      smtpUrl: env.SMTP_URL,
      mailFrom: env.MAIL_FROM ?? `Pass <no-reply@${new URL(siteUrl).hostname}>`,
      initialAvailablePasses: env.INITIAL_AVAILABLE_PASSES,
      redisPrefix: env.REDIS_PREFIX,
      commandApiUrl: env.COMMAND_API_URL,
      queryApiUrls: env.QUERY_API_URLS,
      projectorPort: env.PROJECTOR_PORT,
      imageWorkerPort: env.IMAGE_WORKER_PORT,
      projectorLeaseMs: env.PROJECTOR_LEASE_MS,
      projectorInstance: env.PROJECTOR_INSTANCE,
      projectionVersion: env.PROJECTION_VERSION,
      readyMaxLag: { events: env.READY_MAX_LAG_EVENTS, seconds: env.READY_MAX_LAG_SECONDS },
      readyMaxHeartbeatSeconds: env.READY_MAX_HEARTBEAT_SECONDS,
      trustProxy: env.TRUST_PROXY,
      socketsPerClient: env.SOCKETS_PER_CLIENT,
    };
  });

export type Settings = z.output<typeof settingsSchema>;

export class SettingsError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`Invalid setting ${variable}: ${detail}`);
    this.name = 'SettingsError';
  }
}

/** Parses the environment; throws a SettingsError naming the first bad variable. */
export function parseSettings(env: Record<string, string | undefined>): Settings {
  // An empty variable means "unset", as in most deployment tools.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = settingsSchema.safeParse(cleaned);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const variable = String(issue.path[0] ?? 'environment');
  const got = cleaned[variable];
  const secret = /SECRET|PASSWORD|SMTP_URL/.test(variable);
  const shown = got === undefined ? '' : secret ? ' (value hidden)' : ` (got "${got}")`;
  throw new SettingsError(variable, `${issue.message}${shown}`);
}

/**
 * Each process names what it cannot run without (e.g. REDIS_URL for a distributed service, a
 * session secret in production): the same one-line refusal as a bad value. The shared schema
 * keeps these optional, because which are needed depends on the process.
 */
export function requireSettings(settings: Settings, service: string, required: RequiredSetting[]): void {
  for (const requirement of required) {
    if (requirement.when && !requirement.when.holds(settings)) continue;
    const value = settings[requirement.key];
    if (value === undefined) throw new SettingsError(requirement.variable, `is required by the ${service} service${requirement.when ? ` ${requirement.when.text}` : ''}`);
    if (requirement.check) {
      const problem = requirement.check(value, settings);
      if (problem) throw new SettingsError(requirement.variable, `${problem} (the ${service} service)`);
    }
  }
}

export interface RequiredSetting {
  variable: string;
  key: keyof Settings;
  /** Required only then (e.g. NODE_ENV=production); `text` completes the refusal ("when …"). */
  when?: { holds: (settings: Settings) => boolean; text: string };
  /** Returns a problem, or undefined when the value is fine. */
  check?: (value: NonNullable<Settings[keyof Settings]>, settings: Settings) => string | undefined;
}

/** For entry points: parse or print one line and exit 1. */
export function loadSettingsOrExit(env: Record<string, string | undefined> = process.env, validate?: (settings: Settings) => void): Settings {
  try {
    const settings = parseSettings(env);
    validate?.(settings);
    return settings;
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
