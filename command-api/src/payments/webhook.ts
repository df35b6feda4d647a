import type { CommandContext } from '@pass/events';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isDomainError } from '../kernel/domain-error';
import { reverseCapturedPurchase, type BuyPointsDeps } from './buy-points';
import type { WebhookDelivery } from './port';

/** The webhook's signature did not verify: answered 400, nothing appended. */
export class InvalidWebhookSignature extends Error {
  constructor() {
    super('The webhook signature is not valid');
    this.name = 'InvalidWebhookSignature';
  }
}

const REASONS = {
  'PAYMENT.CAPTURE.REFUNDED': 'refunded',
  'PAYMENT.CAPTURE.REVERSED': 'reversed',
} as const;

const eventSchema = z.object({
  id: z.string().optional(),
  event_type: z.string(),
  resource: z
    .object({
      id: z.string().optional(),
      links: z.array(z.object({ rel: z.string(), href: z.string() })).optional(),
    })
    .loose()
    .optional(),
});

/** A refund's resource is the refund; its `up` link names the refunded capture. */
const CAPTURE_LINK = /\/v2\/payments\/captures\/([^/?#]+)$/;

export type WebhookOutcome =
  | { outcome: 'reversed'; captureId: string; userId: string; /** The member's points afterwards. */ balance: number }
  | { outcome: 'ignored'; reason: string };

/**
 * PAYMENT.CAPTURE.REFUNDED / REVERSED: after PayPal confirms it signed the delivery, the member's
 * purchase is reversed (PurchaseReversed on their stream; points taken back, never below 0).
 * Idempotent per capture: redeliveries change nothing. The member comes from the capture as
 * PayPal reports it (its custom_id), not from the event body alone.
 */
export async function handlePayPalWebhook(
  deps: BuyPointsDeps,
  delivery: WebhookDelivery,
  ctx: CommandContext,
  logger: Logger,
): Promise<WebhookOutcome> {
  if (!(await deps.payments.verifyWebhook(delivery))) throw new InvalidWebhookSignature();
  const parsed = eventSchema.safeParse(delivery.event);
  if (!parsed.success) return { outcome: 'ignored', reason: 'not a PayPal event' };
  const event = parsed.data;
  const reason = REASONS[event.event_type as keyof typeof REASONS];
  if (!reason) return { outcome: 'ignored', reason: `event ${event.event_type} is not handled` };

  const captureId =
    reason === 'reversed'
      ? event.resource?.id
      : CAPTURE_LINK.exec(event.resource?.links?.find((l) => l.rel === 'up')?.href ?? '')?.[1];
  if (!captureId) return { outcome: 'ignored', reason: 'the event names no capture' };

  const capture = await deps.payments.getCapture(captureId);
  if (!capture?.userId) return { outcome: 'ignored', reason: 'the capture is not one of ours' };
  // A partial refund is a goodwill gesture, not a cancelled purchase: the points stay.
  if (reason === 'refunded' && capture.status === 'PARTIALLY_REFUNDED') {
    logger.warn({ captureId, eventId: event.id }, 'PayPal partial refund: points kept');
    return { outcome: 'ignored', reason: 'partial refund' };
  }
  try {
    const after = await reverseCapturedPurchase(deps, capture.userId, captureId, reason, ctx);
    logger.info({ captureId, userId: capture.userId, reason, balance: after.points, eventId: event.id }, 'purchase reversed');
    return { outcome: 'reversed', captureId, userId: capture.userId, balance: after.points };
  } catch (error) {
    // Nothing was credited for this capture (e.g. never captured through us): nothing to take back.
    if (isDomainError(error, 'not_found')) return { outcome: 'ignored', reason: 'no credited purchase for this capture' };
    throw error;
  }
}
