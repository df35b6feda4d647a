import {
  CURRENCY,
  PURCHASE_OPTIONS,
  purchaseOptionFor,
  type CaptureOrderResponse,
  type CreateOrderResponse,
  type PaymentsConfigResponse,
} from '@pass/events';
import { Router } from 'express';
import { z } from 'zod';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import type { CommandServices } from '../services';
import { toUserView } from '../members/view';
import { captureAndCredit, creditCapturedOrder, type Credited } from './buy-points';
import { payPalWebhookRoute } from './webhook-route';

const OPTIONS_TEXT = PURCHASE_OPTIONS.map((option) => `$${option.amountUsd.toLocaleString('en-US')}`).join(', ');
const NOT_AN_OPTION = `Choose one of the purchase options: ${OPTIONS_TEXT}`;

const createOrderSchema = z.object({
  amountUsd: z.number({ error: NOT_AN_OPTION }).refine((amountUsd) => purchaseOptionFor(amountUsd) !== undefined, NOT_AN_OPTION),
});
const orderIdSchema = z.string().trim().min(1, 'The payment order is missing').max(200, 'The payment order is not valid');
const buyPointsSchema = z.object({
  orderId: z.string({ error: 'The payment order is missing' }).trim().min(1, 'The payment order is missing').max(200),
});

const completed = ({ user, points }: Credited): CaptureOrderResponse => ({ status: 'COMPLETED', points, user: toUserView(user) });

/** Buying points: the checkout's order and capture, the spec's /api/buy-points, PayPal's refund/reversal webhook. */
export function paymentRoutes(services: CommandServices): Router {
  const router = Router();
  const logger = services.logger.child({ component: 'payments' });

  router.get('/api/payments/config', (_req, res) => {
    const body: PaymentsConfigResponse = { provider: services.payments.provider, testMode: services.payments.testMode, clientId: services.payments.clientId, currency: CURRENCY };
    res.set('Cache-Control', 'no-store').json(body);
  });

  // The price, currency and description come from the server's option table; the client only picks one.
  router.post('/api/payments/orders', async (req, res) => {
    const user = requireUser(res);
    const { amountUsd } = createOrderSchema.parse(req.body ?? {});
    // Per member (DEFAULT_ACTION_LIMITS.ordersPerUser): over it, a 429 with Retry-After and no order.
    await services.actions.enforce('orders', user.id, undefined);
    const { orderId } = await services.payments.createOrder(user.id, amountUsd);
    logger.info({ userId: user.id, orderId, amountUsd, provider: services.payments.provider }, 'payment order created');
    const body: CreateOrderResponse = { orderId, provider: services.payments.provider, testMode: services.payments.testMode };
    res.status(201).json(body);
  });

  router.post('/api/payments/orders/:orderId/capture', async (req, res) => {
    const user = requireUser(res);
    const orderId = orderIdSchema.parse(req.params.orderId);
    res.json(completed(await captureAndCredit(services, user.id, orderId, commandContext(req, user, services.clock))));
  });

  // The spec's helper: credits an order the provider reports captured, never captures itself.
  router.post('/api/buy-points', async (req, res) => {
    const user = requireUser(res);
    const { orderId } = buyPointsSchema.parse(req.body ?? {});
    res.json(completed(await creditCapturedOrder(services, user.id, orderId, commandContext(req, user, services.clock))));
  });

  router.use(payPalWebhookRoute(services, logger));
  return router;
}
