import type { Logger } from 'pino';
import { loadSettingsOrExit, type Settings } from '../config/settings';
import { createLogger } from '../logger';

export interface RunningService {
  /** Logged with "listening" (tests and operators wait for that line). */
  url: string;
  close(): Promise<void>;
}

/**
 * The shape of every entry point: settings parsed once (a bad one is one line on stderr and exit
 * 1), one root logger, start, then a graceful stop on SIGTERM/SIGINT. A second signal, or a stop
 * that takes longer than `stopTimeoutMs`, exits at once.
 */
export async function runService<R extends RunningService>(
  service: string,
  start: (settings: Settings, logger: Logger) => Promise<R>,
  options: { validate?: (settings: Settings) => void; stopTimeoutMs?: number; extra?: (running: R, settings: Settings) => Record<string, unknown> } = {},
): Promise<void> {
  const settings = loadSettingsOrExit(process.env, options.validate);
  // Pretty logs on a developer's terminal only: pino-pretty is a dev dependency, absent from images.
  const logger = createLogger({ level: settings.logLevel, service, pretty: process.stdout.isTTY && settings.nodeEnv !== 'production' });
  let running: R | undefined;
  let stopping = false;

  const stop = (service: R) => {
    service.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, starting: running === undefined }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, options.stopTimeoutMs ?? 20_000);
    timer.unref();
    // During start-up (e.g. a long catch-up) the stop happens as soon as start() returns.
    if (running) stop(running);
  };
  // Installed before start so a signal during start-up still closes what was opened.
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  try {
    running = await start(settings, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    // Let pino flush the line before exiting.
    setImmediate(() => process.exit(1));
    return;
  }
  logger.info({ url: running.url, ...options.extra?.(running, settings) }, 'listening');
  // Log lines are batched (logger.ts): whoever waits for this one (operators, tests) sees it now.
  logger.flush();
  if (stopping) stop(running);
}
