import { loadSettingsOrExit } from '../config/settings';
import { createLogger } from '../logger';
import { startStandalone } from './compose';

const settings = loadSettingsOrExit();
const logger = createLogger({ level: settings.logLevel, service: 'standalone', pretty: process.stdout.isTTY });

try {
  const running = await startStandalone(settings, logger);
  logger.info({ url: running.url, eventStore: running.eventStore.kind, dataDir: settings.dataDir }, 'listening');
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  logger.fatal({ err: error }, 'start-up failed');
  process.exit(1);
}
