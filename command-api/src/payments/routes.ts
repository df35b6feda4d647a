import { CURRENCY, PURCHASE_OPTIONS, purchaseOptionFor, type CaptureOrderResponse, type CreateOrderResponse, type PaymentsConfigResponse } from '@pass/events';
import express, { Router } from 'express';
import { z } from 'zod';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import type { CommandServices } from '../kernel/services';
import { toUserView } from '../users/view';
import { captureAndCredit } from './buy-points';
import { rawBodyOf } from './raw-body';
import { handlePayPalWebhook, InvalidWebhookSignature } from './webhook';

const OPTIONS_TEXT = PURCHASE_OPTIONS.map((o) => `$${o.amountUsd.toLocaleString('en-US')}`).join(', ');
const NOT_AN_OPTION = `Choose one of the purchase options: ${OPTIONS_TEXT}`;

const createOrderSchema = z.object({
  amountUsd: z.number({ error: NOT_AN_OPTION }).refine((n) => purchaseOptionFor(n) !== undefined, NOT_AN_OPTION),
});
const orderIdSchema = z.string().trim().min(1, 'The payment order is missing').max(200, 'The payment order is not valid');

/** The Payments routes: order creation and capture for the checkout, PayPal's refund/reversal webhook. */
export function paymentRoutes(s: CommandServices): Router {
  const router = Router();
  const logger = s.logger.child({ component: 'payments' });

  router.get('/api/payments/config', (_req, res) => {
    const body: PaymentsConfigResponse = {
      provider: s.payments.provider,
      testMode: s.payments.testMode,
      clientId: s.payments.clientId,
      currency: CURRENCY,
    };
    res.set('Cache-Control', 'no-store').json(body);
  });

  // The price, currency and description come from the server's option table; the client only picks one.
  router.post('/api/payments/orders', async (req, res) => {
    const user = requireUser(res);
    const { amountUsd } = createOrderSchema.parse(req.body ?? {});
    const { orderId } = await s.payments.createOrder(user.id, amountUsd);
    logger.info({ userId: user.id, orderId, amountUsd, provider: s.payments.provider }, 'payment order created');
    const body: CreateOrderResponse = { orderId, provider: s.payments.provider, testMode: s.payments.testMode };
    res.status(201).json(body);
  });

  router.post('/api/payments/orders/:orderId/capture', async (req, res) => {
    const user = requireUser(res);
    const orderId = orderIdSchema.parse(req.params.orderId);
    const { user: state, points } = await captureAndCredit(s, user.id, orderId, commandContext(req, user, s.clock));
    const body: CaptureOrderResponse = { status: 'COMPLETED', points, user: toUserView(state) };
    res.json(body);
  });

  // PayPal calls this without a session; the signature, verified by PayPal itself, is the credential.
  // It covers the body's bytes: read raw here unless a JSON parser in front kept them (raw-body.ts).
  router.post('/api/payments/webhooks/paypal', express.raw({ type: () => true, limit: '100kb' }), async (req, res) => {
    const ctx = { ...commandContext(req, null, s.clock), actor: { type: 'system' as const, id: 'paypal-webhook' } };
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
    const rawBody = rawBodyOf(req);
    if (!rawBody) {
      // A JSON parser in front dropped the bytes (a composition without keepWebhookRawBody): a 500, so PayPal redelivers.
      logger.error('PayPal webhook body was parsed without keeping its bytes; cannot verify the signature');
      throw new Error('webhook raw body not kept');
    }
    let event: unknown;
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new HttpError(400, 'The request body is not valid JSON');
    }
    try {
      const result = await handlePayPalWebhook(s, { headers, rawBody, event }, ctx, logger);
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
