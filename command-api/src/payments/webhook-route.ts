import express, { Router } from 'express';
import type { Logger } from 'pino';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import type { CommandServices } from '../services';
import { rawBodyOf } from './raw-body';
import { handlePayPalWebhook, InvalidWebhookSignature } from './webhook';

/** The body's JSON; 400 when it is not JSON. */
function parsedBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON');
  }
}

/**
 * POST /api/payments/webhooks/paypal: refunds and reversals. PayPal calls it without a session;
 * the signature, verified by PayPal itself, is the credential. It covers the body's bytes: read
 * raw here unless a JSON parser in front kept them (raw-body.ts).
 */
export function payPalWebhookRoute(services: CommandServices, logger: Logger): Router {
  const router = Router();
  router.post('/api/payments/webhooks/paypal', express.raw({ type: () => true, limit: '100kb' }), async (req, res) => {
    const ctx = { ...commandContext(req, null, services.clock), actor: { type: 'system' as const, id: 'paypal-webhook' } };
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
    const rawBody = rawBodyOf(req);
    if (!rawBody) {
      // A JSON parser in front dropped the bytes (a composition without keepWebhookRawBody): a 500, so PayPal redelivers.
      logger.error('PayPal webhook body was parsed without keeping its bytes; cannot verify the signature');
      throw new Error('webhook raw body not kept');
    }
    const event = parsedBody(rawBody);
    try {
      const result = await handlePayPalWebhook(services, { headers, rawBody, event }, ctx, logger);
      if (result.outcome === 'ignored') logger.info({ reason: result.reason }, 'PayPal webhook ignored');
      res.json({ received: true, ...result });
    } catch (error) {
      if (error instanceof InvalidWebhookSignature) {
        logger.warn({ transmissionId: headers['paypal-transmission-id'] }, 'PayPal webhook with an invalid signature refused');
        throw new HttpError(400, error.message);
      }
      throw error;
    }
  });
  return router;
}
