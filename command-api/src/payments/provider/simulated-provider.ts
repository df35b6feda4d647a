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
}

/**
 * TEST MODE ONLY: a payment provider that moves no money. It follows PayPal's order life
 * cycle (create → the buyer approves → capture) so the whole purchase flow runs in
 * development, standalone and tests; the buyer's approval is the click on the labelled
 * test-mode button, so a capture stands for approve + capture. Orders live in this process's
 * memory. Refused when NODE_ENV=production (settings and `createPaymentProvider`).
 */
export class SimulatedPaymentProvider implements PaymentProvider {
  readonly provider = 'simulated' as const;
  readonly testMode = true;
  readonly clientId = null;
  private readonly orders = new Map<string, SimulatedOrder>();

  /** Creates an order for one of the nine purchase options (spec §9). */
  async createOrder(userId: string, amountUsd: number): Promise<{ orderId: string }> {
    if (!purchaseOptionFor(amountUsd)) throw new DomainError('invalid', `No purchase option costs ${amountUsd} USD`);
    const orderId = `SIM-${randomUUID()}`;
    this.orders.set(orderId, { orderId, userId, amountUsd, status: 'CREATED', capture: null });
    return { orderId };
  }

  /** Captures an order; capturing it again answers the same capture (like PayPal's idempotent retry). */
  async captureOrder(orderId: string): Promise<VerifiedCapture> {
    const order = this.orders.get(orderId);
    if (!order) throw new DomainError('not_found', 'This payment order does not exist');
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
    const order = this.orders.get(orderId);
    if (!order) return null;
    return { provider: 'simulated', orderId, status: order.status, userId: order.userId, optionUsd: order.amountUsd, capture: order.capture };
  }

  async getCapture(captureId: string): Promise<CaptureRecord | null> {
    for (const order of this.orders.values()) {
      if (order.capture?.captureId === captureId) return { captureId, status: order.capture.status, userId: order.userId };
    }
    return null;
  }

  /** No webhooks in test mode: nothing signed by a provider can arrive. */
  async verifyWebhook(): Promise<boolean> {
    return false;
  }
}
