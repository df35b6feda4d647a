import { pino, type Logger } from 'pino';

/** One root logger per process; children carry the service name and request/correlation ids. */
export function createLogger(options: { level: string; service: string; pretty?: boolean }): Logger {
  return pino({
    level: options.level,
    base: { service: options.service },
    redact: { paths: ['req.headers.cookie', 'res.headers["set-cookie"]', '*.password', '*.passwordHash'], remove: true },
    ...(options.pretty ? { transport: { target: 'pino-pretty', options: { singleLine: true } } } : {}),
  });
}
