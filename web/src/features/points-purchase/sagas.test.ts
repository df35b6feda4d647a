import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../lib/http';
import { startApp, sampleUser } from '../../testing/fake-services';
import {
  checkoutOpened,
  paymentsConfigRequested,
  providerButtonFailed,
  providerOrderApproved,
  providerOrderRequested,
  purchaseCaptured,
  testPurchaseRequested,
  PAYMENT_FAILED,
} from './actions';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function settle<T>() {
  const outcome: { value?: T; error?: unknown } = {};
  return { outcome, resolve: (value: T) => void (outcome.value = value), reject: (error: unknown) => void (outcome.error = error) };
}

describe('purchase', () => {
  it('test mode: order, capture, buy-points, toast, /content/registered', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(checkoutOpened({ amountUsd: 1 }));
    app.store.dispatch(testPurchaseRequested({ amountUsd: 1 }));
    expect(app.state().purchase.paying).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.createOrder).toHaveBeenCalledWith(1);
    expect(app.api.captureOrder).toHaveBeenCalledWith('o1');
    expect(app.api.buyPoints).toHaveBeenCalledWith({ orderId: 'o1', amount: 1, email: sampleUser.email });
    expect(app.state().user.user.chatCount).toBe(130);
    expect(app.state().loading.isLoading).toBe(false);
    expect(app.state().purchase).toMatchObject({ paying: false, error: null });
    expect(app.toasts).toContainEqual({ kind: 'success', message: 'Points successfully acquired!' });
    expect(app.navigate).toHaveBeenCalledWith('/content/registered');
  });

  it('only a COMPLETED capture counts', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(
      purchaseCaptured({ orderId: 'o2', amountUsd: 5, capture: { status: 'PENDING' as 'COMPLETED', points: 500, user: sampleUser } }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.buyPoints).not.toHaveBeenCalled();
    expect(app.navigate).not.toHaveBeenCalled();
  });

  it('payment errors are logged and shown in the panel, not as toasts', async () => {
    const app = startApp({ userId: 'u1' });
    app.store.dispatch(checkoutOpened({ amountUsd: 1 }));
    app.api.createOrder.mockRejectedValue(new HttpError(504, { error: 'The payment provider did not answer in time, please try again' }));
    app.store.dispatch(testPurchaseRequested({ amountUsd: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.logError).toHaveBeenCalled();
    expect(app.toasts).toEqual([]);
    expect(app.state().purchase).toMatchObject({ paying: false, error: 'The payment provider did not answer in time, please try again' });
    // A network failure (no server answer) gets the generic message.
    app.api.createOrder.mockRejectedValue(new TypeError('Failed to fetch'));
    app.store.dispatch(testPurchaseRequested({ amountUsd: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().purchase.error).toBe(PAYMENT_FAILED);
  });

  it('the payment settings are read from the server once', async () => {
    const app = startApp({ userId: 'u1' });
    app.store.dispatch(paymentsConfigRequested());
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(checkoutOpened({ amountUsd: 5 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.paymentsConfig).toHaveBeenCalledTimes(1);
    expect(app.state().purchase.config).toEqual({ provider: 'simulated', testMode: true, clientId: null, currency: 'USD' });
  });
});

describe("PayPal buttons' callbacks", () => {
  it('createOrder resolves with the server order id; onApprove captures and completes the purchase', async () => {
    const app = startApp({ userId: 'u1' });
    app.store.dispatch(checkoutOpened({ amountUsd: 10 }));
    const order = settle<string>();
    app.store.dispatch(providerOrderRequested({ amountUsd: 10, ...order }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.createOrder).toHaveBeenCalledWith(10);
    expect(order.outcome.value).toBe('o1');

    const approval = settle<void>();
    app.store.dispatch(providerOrderApproved({ orderId: 'o1', amountUsd: 10, ...approval }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.captureOrder).toHaveBeenCalledWith('o1');
    expect(approval.outcome).toEqual({ value: undefined });
    expect(app.toasts).toContainEqual({ kind: 'success', message: 'Points successfully acquired!' });
    expect(app.navigate).toHaveBeenCalledWith('/content/registered');
  });

  it('order and capture errors are logged and re-thrown to PayPal, and shown in the panel', async () => {
    const app = startApp({ userId: 'u1' });
    app.store.dispatch(checkoutOpened({ amountUsd: 10 }));
    const failure = new HttpError(402, { error: 'This payment has not been approved yet' });
    app.api.captureOrder.mockRejectedValue(failure);
    const approval = settle<void>();
    app.store.dispatch(providerOrderApproved({ orderId: 'o1', amountUsd: 10, ...approval }));
    await vi.advanceTimersByTimeAsync(0);
    expect(approval.outcome.error).toBe(failure);
    expect(app.logError).toHaveBeenCalledWith('Capturing the payment failed', failure);
    expect(app.state().purchase.error).toBe('This payment has not been approved yet');
    expect(app.navigate).not.toHaveBeenCalled();

    // PayPal then reports the rejected callback through onError: the precise message stays.
    app.store.dispatch(providerButtonFailed({ message: PAYMENT_FAILED, error: failure }));
    expect(app.state().purchase.error).toBe('This payment has not been approved yet');

    const order = settle<string>();
    app.api.createOrder.mockRejectedValue(new TypeError('Failed to fetch'));
    app.store.dispatch(checkoutOpened({ amountUsd: 10 }));
    app.store.dispatch(providerOrderRequested({ amountUsd: 10, ...order }));
    await vi.advanceTimersByTimeAsync(0);
    expect(order.outcome.error).toBeInstanceOf(TypeError);
    expect(app.state().purchase.error).toBe(PAYMENT_FAILED);
  });
});
