import {
  AbortError,
  ApiError,
  CheckoutPaymentIntent,
  Client,
  Environment,
  OrdersController,
  PaymentsController,
  type CapturedPayment,
  type OAuthToken,
  type Order,
  type OrderRequest,
} from '@paypal/paypal-server-sdk';
import { CURRENCY, purchaseOptionFor } from '@pass/events';
import type { Logger } from 'pino';
import { DomainError } from '@pass/events';
import { PaymentProviderError, type CaptureRecord, type PaymentProvider, type ProviderOrder, type VerifiedCapture, type WebhookDelivery } from './port';

export interface PayPalConfig {
  clientId: string;
  clientSecret: string;
  environment: 'sandbox' | 'production';
  /** The id PayPal gave the webhook subscription; without it webhooks cannot be verified (and are refused). */
  webhookId?: string | undefined;
  /** Per HTTP call to PayPal; a slower answer is a 504 for our caller, never a credit. Default 10 s. */
  timeoutMs?: number;
}

export const PAYPAL_API_BASE = {
  sandbox: 'https://api-m.sandbox.paypal.com',
  production: 'https://api-m.paypal.com',
} as const;

/** The purchase unit's reference_id names the option the order was created for. */
const OPTION_REF = /^option-usd-(\d+)$/;
export const optionReference = (amountUsd: number) => `option-usd-${amountUsd}`;

/** The headers PayPal signs a webhook delivery with (lower-cased, as Node delivers them). */
const TRANSMISSION_HEADERS = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
} as const;

/** PayPal's error name and first issue, from an SDK ApiError (its parsed `result` or raw body). */
function issueOf(error: ApiError): { name: string; issue: string } {
  let result = error.result as { name?: string; details?: { issue?: string }[] } | undefined;
  if (!result && typeof error.body === 'string') {
    try {
      result = JSON.parse(error.body) as typeof result;
    } catch {
      /* not JSON: no issue to read */
    }
  }
  return { name: result?.name ?? '', issue: result?.details?.[0]?.issue ?? '' };
}

function isTimeout(error: unknown): boolean {
  if (error instanceof AbortError) return true;
  const failure = error as { code?: string; name?: string; message?: string } | null;
  return failure?.code === 'ECONNABORTED' || failure?.code === 'ETIMEDOUT' || failure?.name === 'TimeoutError' || /timeout/i.test(failure?.message ?? '');
}

const usd = (value: string | undefined) => (value === undefined ? NaN : Number(value));

/**
 * PayPal Orders v2 through `@paypal/paypal-server-sdk`. The server creates each order from its
 * own option table (amount, USD, description), with the member in `custom_id` and the option in
 * `reference_id`, and reads both back before crediting; the browser only approves.
 */
export class PayPalPaymentProvider implements PaymentProvider {
  readonly provider = 'paypal' as const;
  readonly testMode: boolean;
  readonly clientId: string;
  private readonly orders: OrdersController;
  private readonly payments: PaymentsController;
  private readonly client: Client;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  /** The SDK's latest OAuth token, reused for the one call the SDK has no controller for (webhook verification). */
  private token: OAuthToken | undefined;

  constructor(
    private readonly config: PayPalConfig,
    private readonly logger: Logger,
  ) {
    this.timeoutMs = config.timeoutMs ?? 10_000;
    this.baseUrl = PAYPAL_API_BASE[config.environment];
    // Sandbox moves no real money: the web app labels it as test mode too.
    this.testMode = config.environment === 'sandbox';
    this.clientId = config.clientId;
    this.client = new Client({
      clientCredentialsAuthCredentials: {
        oAuthClientId: config.clientId,
        oAuthClientSecret: config.clientSecret,
        oAuthOnTokenUpdate: (token) => {
          this.token = token;
        },
      },
      environment: config.environment === 'production' ? Environment.Production : Environment.Sandbox,
      // Each call is aborted at timeoutMs (see `call`); this is only the backstop for the SDK's own token request.
      timeout: this.timeoutMs + 1_000,
      // No SDK retries: the caller (the buyer's browser, PayPal's webhook redelivery) retries, and
      // a capture retry is only safe with the same PayPal-Request-Id, which we set below.
      httpClientOptions: { retryConfig: { maxNumberOfRetries: 0 } },
    });
    this.orders = new OrdersController(this.client);
    this.payments = new PaymentsController(this.client);
  }

  async createOrder(userId: string, amountUsd: number): Promise<{ orderId: string }> {
    const option = purchaseOptionFor(amountUsd);
    if (!option) throw new DomainError('invalid', `No purchase option costs ${amountUsd} USD`);
    const body: OrderRequest = {
      intent: CheckoutPaymentIntent.Capture,
      purchaseUnits: [
        {
          referenceId: optionReference(option.amountUsd),
          customId: userId,
          description: option.description,
          amount: { currencyCode: CURRENCY, value: option.amountUsd.toFixed(2) },
        },
      ],
    };
    const { result } = await this.call('create order', (options) => this.orders.createOrder({ body, prefer: 'return=minimal' }, options));
    if (!result.id) throw new PaymentProviderError(new Error('PayPal created an order without an id'));
    return { orderId: result.id };
  }

  async captureOrder(orderId: string): Promise<VerifiedCapture> {
    let order: Order;
    try {
      // Same request id for the same order: PayPal answers a repeated capture with the first result.
      const request = { id: orderId, paypalRequestId: `capture-${orderId}`, prefer: 'return=representation' };
      ({ result: order } = await this.call('capture order', (options) => this.orders.captureOrder(request, options)));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const { issue } = issueOf(error);
      // Another call captured (or is capturing) this order: its capture is the answer.
      if (issue === 'ORDER_ALREADY_CAPTURED' || issue === 'PREVIOUS_REQUEST_IN_PROGRESS') {
        const existing = await this.getOrder(orderId);
        if (existing?.capture) return existing.capture;
        if (issue === 'PREVIOUS_REQUEST_IN_PROGRESS') throw new DomainError('conflict', 'This payment is still being processed, please try again');
      }
      throw this.refusal(error, issue);
    }
    const capture = this.captureOf(order);
    if (!capture) throw new DomainError('payment_not_verified', 'This payment has not been completed');
    return capture;
  }

  async getOrder(orderId: string): Promise<ProviderOrder | null> {
    let order: Order;
    try {
      ({ result: order } = await this.call('get order', (options) => this.orders.getOrder({ id: orderId }, options)));
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 404) return null;
      if (error instanceof ApiError) throw this.refusal(error, issueOf(error).issue);
      throw error;
    }
    const unit = order.purchaseUnits?.[0];
    return {
      provider: 'paypal',
      orderId: order.id ?? orderId,
      status: order.status ?? '',
      userId: unit?.customId ?? null,
      optionUsd: this.optionOf(unit?.referenceId),
      capture: this.captureOf(order),
    };
  }

  async getCapture(captureId: string): Promise<CaptureRecord | null> {
    let capture: CapturedPayment;
    try {
      ({ result: capture } = await this.call('get capture', (options) => this.payments.getCapturedPayment({ captureId }, options)));
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 404) return null;
      if (error instanceof ApiError) throw new PaymentProviderError(error);
      throw error;
    }
    return { captureId: capture.id ?? captureId, status: capture.status ?? '', userId: capture.customId ?? null };
  }

  /**
   * Asks PayPal whether it signed this delivery (POST /v1/notifications/verify-webhook-signature).
   * The SDK has no controller for it, so this is a plain call with the SDK's OAuth token.
   */
  async verifyWebhook(delivery: WebhookDelivery): Promise<boolean> {
    if (!this.config.webhookId) {
      this.logger.warn('PayPal webhook refused: PAYPAL_WEBHOOK_ID is not set');
      return false;
    }
    const headers: Record<string, string> = {};
    for (const [field, header] of Object.entries(TRANSMISSION_HEADERS)) {
      const value = delivery.headers[header];
      if (!value) return false;
      headers[field] = value;
    }
    let response: Response;
    try {
      this.token = await this.client.clientCredentialsAuthManager.updateToken(this.token);
      response = await fetch(`${this.baseUrl}/v1/notifications/verify-webhook-signature`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${this.token.accessToken}`, 'Content-Type': 'application/json' },
        body: verificationBody(headers, this.config.webhookId, delivery.rawBody),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw this.unavailable('verify webhook', error);
    }
    if (response.status >= 500 || response.status === 401 || response.status === 429) {
      throw this.unavailable('verify webhook', new Error(`PayPal answered ${response.status}`));
    }
    const body = (await response.json().catch(() => ({}))) as { verification_status?: string };
    return response.ok && body.verification_status === 'SUCCESS';
  }

  private optionOf(referenceId: string | undefined): number | null {
    const match = OPTION_REF.exec(referenceId ?? '');
    return match ? Number(match[1]) : null;
  }

  private captureOf(order: Order): VerifiedCapture | null {
    const unit = order.purchaseUnits?.[0];
    const capture = unit?.payments?.captures?.[0];
    if (!unit || !capture?.id) return null;
    return {
      provider: 'paypal',
      orderId: order.id ?? '',
      captureId: capture.id,
      status: capture.status ?? '',
      currency: capture.amount?.currencyCode ?? '',
      amountUsd: usd(capture.amount?.value),
      userId: unit.customId ?? capture.customId ?? '',
      optionUsd: this.optionOf(unit.referenceId),
    };
  }

  /** A 4xx from PayPal the buyer can act on, as a domain refusal; anything else is the provider failing. */
  private refusal(error: ApiError, issue: string): Error {
    this.logger.warn({ status: error.statusCode, issue }, 'PayPal refused the request');
    if (error.statusCode === 404) return new DomainError('not_found', 'This payment order does not exist');
    if (error.statusCode === 422 && issue === 'ORDER_NOT_APPROVED') {
      return new DomainError('payment_not_verified', 'This payment has not been approved yet');
    }
    if (error.statusCode === 422 && (issue === 'INSTRUMENT_DECLINED' || issue === 'PAYER_ACTION_REQUIRED')) {
      return new DomainError('payment_not_verified', 'The payment method was declined, please choose another one');
    }
    if (error.statusCode === 422) return new DomainError('payment_not_verified', 'This payment could not be completed');
    return new PaymentProviderError(error);
  }

  private unavailable(what: string, error: unknown): PaymentProviderError {
    const timeout = isTimeout(error);
    this.logger.error({ err: error, timeout }, `PayPal ${what} failed`);
    return new PaymentProviderError(error, timeout ? 504 : 502);
  }

  /**
   * One SDK call: network failures and timeouts become PaymentProviderError (502/504); PayPal's
   * 5xx, 429 and authentication failures too (our credentials, not the buyer's fault). Other
   * API errors (404, 422) are left to the caller, which knows what they mean.
   */
  private async call<T>(what: string, run: (options: { abortSignal: AbortSignal }) => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      // Our own deadline: the SDK turns the abort into an AbortError, which `isTimeout` recognises.
      const result = await run({ abortSignal: AbortSignal.timeout(this.timeoutMs) });
      this.logger.debug({ ms: Date.now() - started }, `PayPal ${what}`);
      return result;
    } catch (error) {
      if (error instanceof ApiError && error.statusCode < 500 && ![401, 403, 429].includes(error.statusCode)) throw error;
      throw this.unavailable(what, error);
    }
  }
}

/**
 * The verify-webhook-signature request with the event spliced in as the bytes PayPal sent:
 * PayPal checks a CRC32 of the body it signed, and JSON re-serialised from the parsed event
 * (other key order, spacing, escapes or number forms) would fail it. Only a body that parses as
 * one JSON value is spliced, so it cannot add fields of its own to the request.
 */
export function verificationBody(headers: Record<string, string>, webhookId: string, rawBody: Buffer): string {
  const event = rawBody.toString('utf8');
  JSON.parse(event);
  const fields = JSON.stringify({ ...headers, webhook_id: webhookId });
  return `${fields.slice(0, -1)},"webhook_event":${event}}`;
}
