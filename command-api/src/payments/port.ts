/**
 * The payment provider as the command side needs it: "was this order really captured, for
 * how much, by whom?". Points are credited only from the answer of this port (DESIGN §3),
 * never from what the browser says. Adapters: the simulated provider (test/dev mode) and,
 * from the Payments work, PayPal (`@paypal/paypal-server-sdk`: get order, read its capture).
 */
export interface VerifiedCapture {
  provider: 'paypal' | 'simulated';
  orderId: string;
  captureId: string;
  /** Provider's capture status; only COMPLETED is credited (spec §5). */
  status: string;
  currency: string;
  amountUsd: number;
  /**
   * The member the order was created for (PayPal: the purchase unit's `custom_id`). A capture
   * is credited only to that member.
   */
  userId: string;
}

export interface PaymentVerifier {
  readonly provider: 'paypal' | 'simulated';
  /** True for providers that move no real money; the web app labels the checkout "test mode". */
  readonly testMode: boolean;
  /** The capture of `orderId`, or null when the provider knows no such captured order. */
  findCapturedOrder(orderId: string): Promise<VerifiedCapture | null>;
}

/** The provider could not be asked (network, outage); nothing is credited. */
export class PaymentProviderError extends Error {
  constructor(cause: unknown) {
    super('The payment could not be verified, please try again', { cause });
    this.name = 'PaymentProviderError';
  }
}
