import { randomUUID } from 'node:crypto';
import { CURRENCY, purchaseOptionFor } from '@pass/events';
import { DomainError } from '@pass/events';
import type { CaptureRecord, PaymentProvider, ProviderOrder, VerifiedCapture } from './port';

interface SimulatedOrder {
  orderId: string;
  userId: string;
  amountUsd: number;
  status: 'CREATED' | 'COMPLETED';
  capture: VerifiedCapture | null;
  /** Epoch ms: created, then captured (the capture's own, longer, keep starts then). */
  since: number;
}

export interface SimulatedProviderOptions {
  /** Epoch ms now; tests pass their own. */
  now?: () => number;
  /** An order not captured within this is dropped; capturing it then fails like an unknown order. */
  unpaidTtlMs?: number;
  /** A captured order is kept this long for a repeated capture or /api/buy-points, then dropped. */
  capturedTtlMs?: number;
  /** At most this many orders in memory: past it, the oldest are dropped. */
  maxOrders?: number;
}

export const SIMULATED_ORDER_DEFAULTS = { unpaidTtlMs: 60 * 60_000, capturedTtlMs: 24 * 60 * 60_000, maxOrders: 10_000 } as const;

/**
 * TEST MODE ONLY: a payment provider that moves no money, following PayPal's order life cycle
 * (create → approve → capture) so the whole purchase flow runs in development, standalone and
 * tests; the labelled test-mode button is the approval, so a capture stands for both. Orders live
 * in memory, bounded by the options above (an unapproved order expires, as at PayPal; the
 * purchase itself is in the event store). Refused when NODE_ENV=production (settings and
 * `createPaymentProvider`).
 */
export class SimulatedPaymentProvider implements PaymentProvider {
  readonly provider = 'simulated' as const;
  readonly testMode = true;
  readonly clientId = null;
  /** In creation order, so the oldest come first when the cap drops some. */
  private readonly orders = new Map<string, SimulatedOrder>();
  private readonly now: () => number;
  private readonly unpaidTtlMs: number;
  private readonly capturedTtlMs: number;
  private readonly maxOrders: number;

  constructor(options: SimulatedProviderOptions = {}) {
    this.now = options.now ?? Date.now;
    this.unpaidTtlMs = options.unpaidTtlMs ?? SIMULATED_ORDER_DEFAULTS.unpaidTtlMs;
    this.capturedTtlMs = options.capturedTtlMs ?? SIMULATED_ORDER_DEFAULTS.capturedTtlMs;
    this.maxOrders = Math.max(1, options.maxOrders ?? SIMULATED_ORDER_DEFAULTS.maxOrders);
  }

  /** Orders in memory (expired ones included until the next sweep). */
  get size(): number {
    return this.orders.size;
  }

  private expired(order: SimulatedOrder, now: number): boolean {
    return now - order.since >= (order.capture ? this.capturedTtlMs : this.unpaidTtlMs);
  }

  /** The order while it is live; an expired one is dropped and answered as unknown. */
  private live(orderId: string): SimulatedOrder | undefined {
    const order = this.orders.get(orderId);
    if (!order) return undefined;
    if (!this.expired(order, this.now())) return order;
    this.orders.delete(orderId);
    return undefined;
  }

  /** Drops the expired orders, then the oldest while the cap is reached (room for one more). */
  private sweep(): void {
    const now = this.now();
    for (const [id, order] of this.orders) if (this.expired(order, now)) this.orders.delete(id);
    for (const id of this.orders.keys()) {
      if (this.orders.size < this.maxOrders) break;
      this.orders.delete(id);
    }
  }

  /** Creates an order for one of the nine purchase options (docs/product.md §9). */
  async createOrder(userId: string, amountUsd: number): Promise<{ orderId: string }> {
    if (!purchaseOptionFor(amountUsd)) throw new DomainError('invalid', `No purchase option costs ${amountUsd} USD`);
    const orderId = `SIM-${randomUUID()}`;
    this.sweep();
    this.orders.set(orderId, { orderId, userId, amountUsd, status: 'CREATED', capture: null, since: this.now() });
    return { orderId };
  }

  /** Captures an order; capturing it again answers the same capture (like PayPal's idempotent retry). */
  async captureOrder(orderId: string): Promise<VerifiedCapture> {
    const order = this.live(orderId);
    if (!order) throw new DomainError('not_found', 'This payment order does not exist');
    if (!order.capture) order.since = this.now();
    order.status = 'COMPLETED';
    order.capture ??= {
      provider: 'simulated',
      orderId,
      captureId: `SIMCAP-${randomUUID()}`,
      status: 'COMPLETED',
      currency: CURRENCY,
      amountUsd: order.amountUsd,
      userId: order.userId,
      optionUsd: order.amountUsd,
    };
    return order.capture;
  }

  async getOrder(orderId: string): Promise<ProviderOrder | null> {
    const order = this.live(orderId);
    if (!order) return null;
    return { provider: 'simulated', orderId, status: order.status, userId: order.userId, optionUsd: order.amountUsd, capture: order.capture };
  }

  async getCapture(captureId: string): Promise<CaptureRecord | null> {
    const now = this.now();
    for (const order of this.orders.values()) {
      if (order.capture?.captureId === captureId && !this.expired(order, now)) return { captureId, status: order.capture.status, userId: order.userId };
    }
    return null;
  }

  /** No webhooks in test mode: nothing signed by a provider can arrive. */
  async verifyWebhook(): Promise<boolean> {
    return false;
  }
}
