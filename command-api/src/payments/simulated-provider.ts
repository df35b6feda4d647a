import { randomUUID } from 'node:crypto';
import { purchaseOptionFor } from '@pass/events';
import type { PaymentVerifier, VerifiedCapture } from './port';

interface SimulatedOrder {
  orderId: string;
  userId: string;
  amountUsd: number;
  capture: VerifiedCapture | null;
}

/**
 * TEST MODE ONLY: a payment provider that moves no money. Orders live in this process's
 * memory; it exists so the purchase flow runs end to end in development and tests, and is
 * refused in production by the settings (PAYMENTS_PROVIDER=simulated with NODE_ENV=production).
 */
export class SimulatedPaymentProvider implements PaymentVerifier {
  readonly provider = 'simulated' as const;
  readonly testMode = true;
  private readonly orders = new Map<string, SimulatedOrder>();

  /** Creates an order for one of the nine purchase options (spec §9). */
  createOrder(userId: string, amountUsd: number): { orderId: string } {
    if (!purchaseOptionFor(amountUsd)) throw new Error(`No purchase option costs ${amountUsd} USD`);
    const orderId = `SIM-${randomUUID()}`;
    this.orders.set(orderId, { orderId, userId, amountUsd, capture: null });
    return { orderId };
  }

  /** Captures an order (what the buyer's approval does at a real provider). Capturing twice returns the same capture. */
  captureOrder(orderId: string): VerifiedCapture {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`Unknown order ${orderId}`);
    order.capture ??= {
      provider: 'simulated',
      orderId,
      captureId: `SIMCAP-${randomUUID()}`,
      status: 'COMPLETED',
      currency: 'USD',
      amountUsd: order.amountUsd,
      userId: order.userId,
    };
    return order.capture;
  }

  async findCapturedOrder(orderId: string): Promise<VerifiedCapture | null> {
    return this.orders.get(orderId)?.capture ?? null;
  }
}
