import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startApp, sampleUser } from '../../testing/fakeServices';
import { purchaseCaptured, testPurchaseRequested } from './purchaseActions';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('purchase', () => {
  it('test mode: order, capture, buy-points, toast, /content/registered', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(testPurchaseRequested({ amountUsd: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.createOrder).toHaveBeenCalledWith(1);
    expect(app.api.captureOrder).toHaveBeenCalledWith('o1');
    expect(app.api.buyPoints).toHaveBeenCalledWith({ orderId: 'o1', amount: 1, email: sampleUser.email });
    expect(app.state().user.user.chatCount).toBe(130);
    expect(app.state().loading.isLoading).toBe(false);
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

  it('payment errors are only logged', async () => {
    const app = startApp({ userId: 'u1' });
    app.api.createOrder.mockRejectedValue(new Error('provider down'));
    app.store.dispatch(testPurchaseRequested({ amountUsd: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.logError).toHaveBeenCalled();
    expect(app.toasts).toEqual([]);
  });
});
