import type { PaymentProviderName } from '@pass/events';
import { HttpError } from '../../http/errors';

/**
 * The payment provider as the command side needs it: create an order for one of the nine
 * purchase options, capture it after the buyer's approval, and read it back. Points are
 * credited only from what this port reports (docs/architecture.md, "Command side"), never from what the browser says.
 * Adapters: `PayPalPaymentProvider` (`@paypal/paypal-server-sdk`) and
 * `SimulatedPaymentProvider` (test mode: no money moves, refused in production).
 */

/** One capture of an order, as the provider reports it. */
export interface VerifiedCapture {
  provider: PaymentProviderName;
  orderId: string;
  captureId: string;
  /** Provider's capture status; only COMPLETED is credited (docs/product.md §5). */
  status: string;
  currency: string;
  amountUsd: number;
  /**
   * The member the order was created for (PayPal: the purchase unit's `custom_id`). A capture
   * is credited only to that member.
   */
  userId: string;
  /**
   * The purchase option (its price in USD) the order was created for (PayPal: the purchase
   * unit's `reference_id`), or null when the order does not name one. The capture must match it.
   */
  optionUsd: number | null;
}

/** An order as the provider knows it, before or after capture. */
export interface ProviderOrder {
  provider: PaymentProviderName;
  orderId: string;
  /** CREATED, APPROVED, COMPLETED, VOIDED, … (PayPal's order statuses). */
  status: string;
  /** The member the order was created for; null when the order was not made by this server. */
  userId: string | null;
  optionUsd: number | null;
  /** The order's capture once captured, else null. */
  capture: VerifiedCapture | null;
}

/** A capture looked up by its id (refund and reversal webhooks name only the capture). */
export interface CaptureRecord {
  captureId: string;
  status: string;
  userId: string | null;
}

/** The headers PayPal signs a webhook delivery with, and the delivered event. */
export interface WebhookDelivery {
  headers: Record<string, string | undefined>;
  /** The body's bytes as received: what the provider signed. */
  rawBody: Buffer;
  /** The same body, parsed. */
  event: unknown;
}

export interface PaymentProvider {
  readonly provider: PaymentProviderName;
  /** True for providers that move no real money; the web app labels the checkout "test mode". */
  readonly testMode: boolean;
  /** The public client id the browser's checkout buttons need (PayPal), else null. */
  readonly clientId: string | null;
  /** Creates an order for one purchase option; the amount and description come from the option table. */
  createOrder(userId: string, amountUsd: number): Promise<{ orderId: string }>;
  /**
   * Captures an approved order. Capturing an order that is already captured answers its
   * existing capture (retries and duplicate calls see the same result).
   */
  captureOrder(orderId: string): Promise<VerifiedCapture>;
  /** The order, or null when the provider knows no such order. */
  getOrder(orderId: string): Promise<ProviderOrder | null>;
  /** The capture by id, or null when unknown. */
  getCapture(captureId: string): Promise<CaptureRecord | null>;
  /** True when the provider confirms it signed this webhook delivery (providers without webhooks: false). */
  verifyWebhook(delivery: WebhookDelivery): Promise<boolean>;
}

/** The provider could not be asked (network, outage, timeout); nothing is credited. Answered with its status. */
export class PaymentProviderError extends HttpError {
  /** 502: the provider failed or could not be reached; 504: it did not answer in time. */
  declare readonly status: 502 | 504;

  constructor(
    cause: unknown,
    status: 502 | 504 = 502,
    message = status === 504
      ? 'The payment provider did not answer in time, please try again'
      : 'The payment could not be verified, please try again',
  ) {
    super(status, message, undefined, {}, { cause });
    this.name = 'PaymentProviderError';
  }
}

