import type { RequiredSetting } from '../config/settings';

/**
 * What each process needs set, and nothing more: the projector and the proxy hold no session
 * secret and no payment credentials, so they start without them, in production too.
 */

/** A store several processes can share: not the embedded PGlite (one process per folder). */
const sharedStore: RequiredSetting = {
  variable: 'EVENT_STORE_URL',
  key: 'eventStoreUrl',
  check: (url) => (String(url).startsWith('pglite:') ? 'expected postgres://… or esdb://… (PGlite cannot be shared between processes)' : undefined),
};
const redis: RequiredSetting = { variable: 'REDIS_URL', key: 'redisUrl' };
// query-api verifies the cookies command-api signs: both need the same secret, in every mode
// (a generated one could not be shared).
const secret: RequiredSetting = { variable: 'SESSION_SECRET', key: 'sessionSecret' };
const commandApiUrl: RequiredSetting = { variable: 'COMMAND_API_URL', key: 'commandApiUrl' };

const inProduction = { holds: (settings: { nodeEnv: string }) => settings.nodeEnv === 'production', text: 'when NODE_ENV=production' };
const withPayPal = { holds: (settings: { payments: { provider: string } }) => settings.payments.provider === 'paypal', text: 'when PAYMENTS_PROVIDER=paypal' };

/** Whoever takes payments (command-api, standalone): real money in production, PayPal's credentials with PayPal. */
const payments: RequiredSetting[] = [
  {
    variable: 'PAYMENTS_PROVIDER',
    key: 'payments',
    check: (_value, settings) =>
      settings.nodeEnv === 'production' && settings.payments.provider === 'simulated'
        ? 'the simulated (test mode) provider is refused when NODE_ENV=production; set paypal'
        : undefined,
  },
  { variable: 'PAYPAL_CLIENT_ID', key: 'paypalClientId', when: withPayPal },
  { variable: 'PAYPAL_CLIENT_SECRET', key: 'paypalClientSecret', when: withPayPal },
  // Refunds and chargebacks arrive by webhook, verified with its id: without it they would keep the points.
  {
    variable: 'PAYPAL_WEBHOOK_ID',
    key: 'paypalWebhookId',
    when: { holds: (settings) => inProduction.holds(settings) && withPayPal.holds(settings), text: 'with PayPal when NODE_ENV=production' },
  },
];

/** One process doing everything: a generated session secret is fine in development only. */
export const standaloneRequires: RequiredSetting[] = [{ ...secret, when: inProduction }, ...payments];
// A distributed command-api has no operator-visible outbox folder: reset links must go out by mail.
const mail: RequiredSetting = { variable: 'SMTP_URL', key: 'smtpUrl', when: inProduction };
export const commandApiRequires: RequiredSetting[] = [sharedStore, redis, secret, ...payments, mail];
export const projectorRequires: RequiredSetting[] = [sharedStore, redis];
export const queryApiRequires: RequiredSetting[] = [sharedStore, redis, secret, commandApiUrl];
export const imageWorkerRequires: RequiredSetting[] = [redis];
export const proxyRequires: RequiredSetting[] = [commandApiUrl, { variable: 'QUERY_API_URLS', key: 'queryApiUrls' }];

const common = ['NODE_ENV', 'LOG_LEVEL', 'HOST', 'EVENT_STORE_URL', 'REDIS_URL', 'REDIS_PREFIX'];
/** The projector's lag limits, which query-api's /readyz holds it to as well. */
const readiness = ['READY_MAX_LAG_EVENTS', 'READY_MAX_LAG_SECONDS'];
/** What command-api and query-api read to answer browsers: sessions, cookies, CSRF and CSP inputs. */
const web = ['PORT', 'SESSION_SECRET', 'COOKIE_SECURE', 'TRUST_PROXY', 'ALLOWED_ORIGINS', 'SITE_ADDRESS', 'AD_NETWORK_KEY', 'AD_NETWORK_HOST', 'PAYMENTS_PROVIDER', 'SOCIAL_INSTAGRAM_URL', 'SOCIAL_X_URL', 'SOCIAL_YOUTUBE_URL'];

/**
 * Every variable a distributed service reads, required or not: a deployment gives each service
 * these and no others (infra/deploy/compose.yaml is checked against it).
 */
export const serviceVariables: Record<'command-api' | 'projector' | 'query-api' | 'image-worker' | 'proxy', readonly string[]> = {
  'command-api': [
    ...common,
    ...web,
    'UPLOADS_DIR',
    'ADMIN_EMAIL',
    'ADMIN_PASSWORD',
    'INITIAL_AVAILABLE_PASSES',
    'PAYPAL_CLIENT_ID',
    'PAYPAL_CLIENT_SECRET',
    'PAYPAL_ENVIRONMENT',
    'PAYPAL_WEBHOOK_ID',
    'SMTP_URL',
    'MAIL_FROM',
  ],
  projector: [...common, ...readiness, 'READY_MAX_HEARTBEAT_SECONDS', 'REDIS_CLUSTER_NODES', 'PROJECTOR_PORT', 'PROJECTOR_LEASE_MS', 'PROJECTOR_INSTANCE', 'PROJECTION_VERSION'],
  'query-api': [...common, ...web, ...readiness, 'REDIS_CLUSTER_NODES', 'COMMAND_API_URL', 'WEB_DIST_DIR', 'SOCKETS_PER_CLIENT'],
  // No event store, no secrets: Redis (the queue) and the uploads folder it writes into.
  'image-worker': ['NODE_ENV', 'LOG_LEVEL', 'HOST', 'REDIS_URL', 'REDIS_PREFIX', 'UPLOADS_DIR', 'IMAGE_WORKER_PORT'],
  proxy: ['NODE_ENV', 'LOG_LEVEL', 'HOST', 'PORT', 'COMMAND_API_URL', 'QUERY_API_URLS'],
};
