import { isDomainError, type CommandContext } from '@pass/events';
import type { Logger } from 'pino';
import { z } from 'zod';
import { refundCapturedPurchase, reverseCapturedPurchase, type BuyPointsDeps } from './buy-points';
import type { WebhookDelivery } from './provider/port';

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
      /** A refund's amount (the resource of PAYMENT.CAPTURE.REFUNDED is the refund). */
      amount: z.object({ currency_code: z.string(), value: z.string() }).optional(),
      links: z.array(z.object({ rel: z.string(), href: z.string() })).optional(),
    })
    .loose()
    .optional(),
});

/** The refund's id and USD amount, when the resource carries them. */
function refundOf(resource: z.infer<typeof eventSchema>['resource']): { refundId: string; amountUsd: number } | undefined {
  const value = Number(resource?.amount?.value);
  if (!resource?.id || resource.amount?.currency_code !== 'USD' || !Number.isFinite(value) || value <= 0) return undefined;
  return { refundId: resource.id, amountUsd: value };
}

/** A refund's resource is the refund; its `up` link names the refunded capture. */
const CAPTURE_LINK = /\/v2\/payments\/captures\/([^/?#]+)$/;

export type WebhookOutcome =
  | { outcome: 'reversed'; captureId: string; userId: string; /** The member's points afterwards. */ balance: number }
  | { outcome: 'partially_refunded'; captureId: string; userId: string; refundedUsd: number; pointsTaken: number; balance: number }
  | { outcome: 'ignored'; reason: string };

/**
 * PAYMENT.CAPTURE.REFUNDED / REVERSED: after PayPal confirms it signed the delivery (the body's
 * bytes as received), the member's purchase is refunded or reversed: PurchaseReversed on their
 * stream. A refund takes back points in proportion to its dollars (`partial` while the capture
 * is not refunded in full: 0.40 of a 1 USD purchase of 100 points takes 40), floored and never
 * below a zero balance; a chargeback takes back what refunds have not. Each refund counts once.
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
      : CAPTURE_LINK.exec(event.resource?.links?.find((link) => link.rel === 'up')?.href ?? '')?.[1];
  if (!captureId) return { outcome: 'ignored', reason: 'the event names no capture' };

  const capture = await deps.payments.getCapture(captureId);
  if (!capture?.userId) return { outcome: 'ignored', reason: 'the capture is not one of ours' };
  const userId = capture.userId;
  try {
    // A refund (partial or the rest): its share of the points goes back, in proportion to its dollars.
    const refunded = reason === 'refunded' ? refundOf(event.resource) : undefined;
    if (refunded) {
      const { state, reversed } = await refundCapturedPurchase(deps, userId, { captureId, ...refunded }, ctx);
      if (!reversed) return { outcome: 'ignored', reason: 'this refund was already recorded' };
      logger.info({ captureId, userId, refundId: refunded.refundId, ...reversed, balance: state.points, eventId: event.id }, 'purchase refunded');
      return reversed.partial
        ? { outcome: 'partially_refunded', captureId, userId, refundedUsd: reversed.amountUsd, pointsTaken: reversed.points, balance: state.points }
        : { outcome: 'reversed', captureId, userId, balance: state.points };
    }
    // A refund without an amount in USD counts only once PayPal reports the capture refunded in full.
    if (reason === 'refunded' && capture.status !== 'REFUNDED') {
      logger.warn({ captureId, eventId: event.id, status: capture.status }, 'PayPal refund without a USD amount on a capture not fully refunded: ignored');
      return { outcome: 'ignored', reason: 'refund amount unknown' };
    }
    const after = await reverseCapturedPurchase(deps, userId, captureId, reason, ctx);
    logger.info({ captureId, userId, reason, balance: after.points, eventId: event.id }, 'purchase reversed');
    return { outcome: 'reversed', captureId, userId, balance: after.points };
  } catch (error) {
    // Nothing was credited for this capture (e.g. never captured through us): nothing to take back.
    if (isDomainError(error, 'not_found')) return { outcome: 'ignored', reason: 'no credited purchase for this capture' };
    throw error;
  }
}
