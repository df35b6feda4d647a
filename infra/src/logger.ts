import { pino, type Logger } from 'pino';

/** Lines wait in memory until this much is buffered, or FLUSH_MS has passed. */
const BUFFER_BYTES = 8 * 1024;
const FLUSH_MS = 200;

/**
 * One root logger per process; children carry the service name and request/correlation ids.
 * Lines go to stdout in batches (one write per ~8 KB, at least every 200 ms) instead of one
 * write call per line, which is costly under load.
 * pino writes what is left synchronously when the process exits, so a crash line is not lost.
 */
export function createLogger(options: { level: string; service: string; pretty?: boolean }): Logger {
  const settings = {
    level: options.level,
    base: { service: options.service },
    redact: { paths: ['req.headers.cookie', 'res.headers["set-cookie"]', '*.password', '*.passwordHash'], remove: true },
  };
  if (options.pretty) return pino({ ...settings, transport: { target: 'pino-pretty', options: { singleLine: true } } });
  const destination = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES, periodicFlush: FLUSH_MS });
  return pino(settings, destination);
}
