import type { IncomingMessage } from 'node:http';

/** Routes whose signature covers the request body's exact bytes. */
export const RAW_BODY_PATH_PREFIX = '/api/payments/webhooks/';

type WithRawBody = IncomingMessage & { rawBody?: Buffer; originalUrl?: string };

/**
 * `verify` option for express.json: keeps the bytes of a webhook's body as received, before
 * parsing. A provider signs those bytes; the JSON re-serialised from the parsed object can
 * differ (key order, spacing, number and unicode escapes) and would not verify. Every JSON
 * parser in front of the webhook route must pass it (the app shell's and command-api's own).
 */
export function keepWebhookRawBody(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  const url = (req as WithRawBody).originalUrl ?? req.url ?? '';
  if (url.startsWith(RAW_BODY_PATH_PREFIX)) (req as WithRawBody).rawBody = buf;
}

/** The body's bytes as received: kept by `keepWebhookRawBody`, or read raw by the route itself. */
export function rawBodyOf(req: IncomingMessage & { body?: unknown }): Buffer | undefined {
  const kept = (req as WithRawBody).rawBody;
  if (Buffer.isBuffer(kept)) return kept;
  return Buffer.isBuffer(req.body) ? req.body : undefined;
}
