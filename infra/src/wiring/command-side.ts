import type { Logger } from 'pino';
import type { EventStore } from '@pass/events';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import type { Settings } from '../config/settings';

/**
 * command-api from the settings. Standalone keeps sessions and the development session secret
 * under DATA_DIR; distributed (REDIS_URL) keeps sessions, login limits and image jobs in Redis
 * under REDIS_PREFIX, shared by every instance.
 */
export function composeCommandApi(settings: Settings, eventStore: EventStore, logger: Logger): Promise<CommandApi> {
  const distributed = settings.redisUrl !== undefined;
  return createCommandApi({
    eventStore,
    logger,
    config: {
      uploadsDir: settings.uploadsDir,
      // Also with Redis: without SESSION_SECRET (standalone only; services require it) the
      // generated development secret is kept here, so sessions survive restarts.
      dataDir: settings.dataDir,
      ...(distributed ? { redisUrl: settings.redisUrl, redisPrefix: settings.redisPrefix } : {}),
      cookieSecure: settings.cookieSecure,
      sessionSecret: settings.sessionSecret,
      admin: settings.admin,
      initialAvailablePasses: settings.initialAvailablePasses,
      // command-api picks the provider (simulated test mode, or PayPal) and refuses test mode in production.
      payments: { ...settings.payments, nodeEnv: settings.nodeEnv },
    },
  });
}
