import type { Logger } from 'pino';
import type { EventStore } from '@pass/events';
import { createCommandApi, type CommandApi, type PaymentVerifier } from '@pass/command-api';
import type { Settings } from '../config/settings';

/**
 * The payment verifier the settings ask for. `undefined` lets command-api use its simulated
 * (test-mode) provider; the settings already refuse that one in production.
 */
function paymentsFor(settings: Settings): PaymentVerifier | undefined {
  if (settings.payments.provider === 'simulated') return undefined;
  // command-api does not export a PayPal adapter yet; refusing beats crediting on a fake.
  throw new Error('PAYMENTS_PROVIDER=paypal: no PayPal adapter is exported by @pass/command-api yet');
}

/**
 * command-api from the settings. Standalone keeps sessions and the development session secret
 * under DATA_DIR; distributed (REDIS_URL) keeps sessions, login limits and image jobs in Redis
 * under REDIS_PREFIX, shared by every instance.
 */
export function composeCommandApi(settings: Settings, eventStore: EventStore, logger: Logger): Promise<CommandApi> {
  const distributed = settings.redisUrl !== undefined;
  const payments = paymentsFor(settings);
  return createCommandApi({
    eventStore,
    logger,
    config: {
      uploadsDir: settings.uploadsDir,
      ...(distributed ? { redisUrl: settings.redisUrl, redisPrefix: settings.redisPrefix } : { dataDir: settings.dataDir }),
      cookieSecure: settings.cookieSecure,
      sessionSecret: settings.sessionSecret,
      admin: settings.admin,
    },
    ...(payments ? { payments } : {}),
  });
}
