import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleProgress, startApp } from '../../testing/fake-services';
import { progressActions } from './slice';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const today = { date: '2026-01-02', passesTaken: 30, members: 4, fundsRaised: 20, freePoints: 7, pointsBought: 0, chatMessages: 2 };

describe('progress', () => {
  it('loads GET /api/progress when the page asks, then keeps the live days pushed after', async () => {
    const app = startApp();
    app.socket.connect();
    app.store.dispatch(progressActions.progressRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().progress.view).toEqual(sampleProgress);
    app.socket.serverEmit('progress', today);
    expect(app.state().progress.live).toEqual([today]);
  });

  it('asks again after a reconnect once the page has loaded it, not before', async () => {
    const app = startApp();
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.progress).not.toHaveBeenCalled();
    app.store.dispatch(progressActions.progressRequested());
    await vi.advanceTimersByTimeAsync(0);
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.progress).toHaveBeenCalledTimes(2);
  });

  it('says the progress could not be loaded when the request fails', async () => {
    const app = startApp({}, (h) => h.api.progress.mockRejectedValueOnce(new Error('offline')));
    app.store.dispatch(progressActions.progressRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().progress).toMatchObject({ view: null, failed: true, loading: false });
    expect(app.logError).toHaveBeenCalledWith('Fetching the progress failed', expect.any(Error));
  });
});
