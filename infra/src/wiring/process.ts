import type { Logger } from 'pino';
import { loadSettingsOrExit, type Settings } from '../config/settings';
import { createLogger } from '../logger';

export interface RunningService {
  /** Logged with "listening" (tests and operators wait for that line). */
  url: string;
  close(): Promise<void>;
}

/**
 * Signals that arrive within this long of the first are the same stop asked for again, not an
 * operator's impatience: a process group's signal reaches both a launcher (scripts/start.mjs)
 * and its server, and supervisors and terminals can repeat one.
 */
export const REPEAT_SIGNAL_GRACE_MS = 3_000;

/**
 * The shape of every entry point: settings parsed once (a bad one is one line on stderr and exit
 * 1), one root logger, start, then a graceful stop on SIGTERM/SIGINT, exit 0. The stop runs once:
 * a signal during it logs "already stopping" and changes nothing, unless it comes more than
 * REPEAT_SIGNAL_GRACE_MS after the first, which exits at once with 1 (what was being written,
 * e.g. the read-model snapshot, is written to a temporary file and renamed, so the previous
 * complete one stays). A stop that takes longer than `stopTimeoutMs` exits with 1 too.
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
  let stopAskedAt: number | undefined;
  let stopping: Promise<void> | undefined;

  // One stop per process, whoever asks (a signal during start-up, then start() returning).
  const stop = (service: R) =>
    (stopping ??= service.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    ));
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopAskedAt !== undefined) {
      const sinceMs = Date.now() - stopAskedAt;
      if (sinceMs <= REPEAT_SIGNAL_GRACE_MS) {
        logger.warn({ signal, sinceMs }, 'already stopping');
        return;
      }
      logger.warn({ signal, sinceMs }, 'signal during a long stop: exiting now');
      process.exit(1);
      return;
    }
    stopAskedAt = Date.now();
    // A launcher that waits for this (scripts/start.mjs) does not send the signal again.
    if (process.connected) process.send?.({ type: 'stopping', signal }, undefined, {}, () => undefined);
    logger.info({ signal, starting: running === undefined }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, options.stopTimeoutMs ?? 20_000);
    timer.unref();
    // During start-up (e.g. a long catch-up) the stop happens as soon as start() returns.
    if (running) void stop(running);
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
  // A launcher (scripts/start.mjs) says where the site is in plain words.
  if (process.connected) process.send?.({ type: 'listening', url: running.url }, undefined, {}, () => undefined);
  if (stopAskedAt !== undefined) void stop(running);
}
