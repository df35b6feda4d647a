import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../lib/http';
import { pageEntered, pageLeft } from '../../lib/state/page';
import { mainDataActions } from '../../lib/state/site';
import { sampleMainData, sampleUser, startApp } from '../../testing/fake-services';
import { checkActions } from './slice';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const enterCheck = () => {
  const app = startApp({ userId: 'u1' });
  app.store.dispatch(pageEntered('check'));
  return app;
};

describe('free-point countdown (/content/check)', () => {
  it('counts 30 → 0 once per second, awards the point at 1 s and goes home at 0', async () => {
    const app = enterCheck();
    expect(app.state().checkseconds.seconds).toBe(30);
    // The ticket is asked as the countdown starts, not when the point is.
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.adViewTicket).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(app.state().checkseconds.seconds).toBe(29);
    await vi.advanceTimersByTimeAsync(9000);
    // Third banner checked 9 s after the counter showed 29.
    expect(app.state().popup.bannerThree).toBe(true);
    await vi.advanceTimersByTimeAsync(18_999);
    expect(app.state().checkseconds.seconds).toBe(2);
    expect(app.state().check.isChecked).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().checkseconds.seconds).toBe(1);
    expect(app.state().check.isChecked).toBe(true);
    expect(app.toasts).toContainEqual({ kind: 'success', message: 'A new point has been added' });
    // Socket not connected: the HTTP route awards it, with the ticket asked when the countdown started.
    expect(app.api.adViewTicket).toHaveBeenCalledTimes(1);
    expect(app.api.freePoint).toHaveBeenCalledWith('v1.ticket');
    expect(app.state().user.user.chatCount).toBe(31);
    expect(app.navigate).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(app.state().check.isChecked).toBe(false);
    expect(app.navigate).toHaveBeenCalledWith('/');
    expect(app.state().checkseconds.seconds).toBe(30);
    expect(app.redirectHome).not.toHaveBeenCalled();
  });

  it('awards the point over the live connection when connected (increaseChatCount)', async () => {
    const app = startApp({ userId: 'u1' });
    app.socket.acks.increaseChatCount = () => ({ ok: true, data: { user: { id: 'u1', email: 'a@b.com', chatCount: 99 } } });
    app.socket.connect();
    app.store.dispatch(pageEntered('check'));
    await vi.advanceTimersByTimeAsync(29_000);
    expect(app.socket.emitted.find((e) => e.event === 'increaseChatCount')?.args[0]).toEqual({ ticket: 'v1.ticket' });
    expect(app.api.freePoint).not.toHaveBeenCalled();
    expect(app.state().user.user.chatCount).toBe(99);
  });

  it('shows the server\'s reason when the point is refused', async () => {
    const app = startApp({ userId: 'u1' });
    const message = 'Watch the countdown to the end: your point is ready in 3 seconds';
    app.socket.acks.increaseChatCount = () => ({ ok: false, status: 429, error: message });
    app.socket.connect();
    app.store.dispatch(pageEntered('check'));
    await vi.advanceTimersByTimeAsync(29_000);
    // One outcome per tab: the refusal alone, never "A new point has been added" beside it.
    expect(app.toasts).toEqual([{ kind: 'error', message }]);
    expect(app.state().user.user.chatCount).toBe(30);
  });

  it('a countdown whose point another tab already took reads only the refusal (HTTP too)', async () => {
    const message = 'This countdown already earned its point: open the free points page again';
    const app = enterCheck();
    app.api.freePoint.mockRejectedValueOnce(new HttpError(409, { error: message }));
    await vi.advanceTimersByTimeAsync(29_000);
    expect(app.state().check.isChecked).toBe(true);
    expect(app.toasts).toEqual([{ kind: 'error', message }]);
  });

  it('over HTTP too, and asks without a ticket when none could be had (the server says why)', async () => {
    const app = startApp({ userId: 'u1' });
    app.api.adViewTicket.mockRejectedValueOnce(new Error('offline'));
    app.api.freePoint.mockRejectedValueOnce(new HttpError(400, { error: 'Watch the free-point countdown on the free points page to earn a point' }));
    app.store.dispatch(pageEntered('check'));
    await vi.advanceTimersByTimeAsync(29_000);
    expect(app.api.freePoint).toHaveBeenCalledWith('');
    expect(app.toasts).toContainEqual({ kind: 'error', message: 'Watch the free-point countdown on the free points page to earn a point' });
  });

  it('at 19 without the banner: "Network connection lost", then home after 1 s', async () => {
    const app = startApp();
    app.ads.check = { slots: 1, loaded: 0 };
    app.store.dispatch(pageEntered('check'));
    await vi.advanceTimersByTimeAsync(10_999);
    expect(app.toasts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().checkseconds.seconds).toBe(19);
    expect(app.toasts).toContainEqual({ kind: 'error', message: 'Network connection lost' });
    expect(app.redirectHome).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(app.redirectHome).toHaveBeenCalledTimes(1);
    // The countdown stopped: no point was given.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(app.api.freePoint).not.toHaveBeenCalled();
  });

  it('resets to 30 on leaving and does not award the point', async () => {
    const app = enterCheck();
    await vi.advanceTimersByTimeAsync(5000);
    expect(app.state().checkseconds.seconds).toBe(25);
    app.store.dispatch(pageLeft('check'));
    expect(app.state().checkseconds.seconds).toBe(30);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(app.state().checkseconds.seconds).toBe(30);
    expect(app.api.freePoint).not.toHaveBeenCalled();
    expect(app.navigate).not.toHaveBeenCalled();
  });
});

describe('start', () => {
  it('live main data while checking re-fetches the current user', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(checkActions.checkSet(true));
    app.api.me.mockResolvedValueOnce({ ...sampleUser, chatCount: 55 });
    app.store.dispatch(mainDataActions.updatedMainDataReceived({ mainData: sampleMainData, countries: { distinct: 0, top: [] } }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().user.user.chatCount).toBe(55);
  });
});
