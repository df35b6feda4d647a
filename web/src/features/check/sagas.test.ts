import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startApp } from '../../testing/fakeServices';
import { pageEntered, pageLeft } from '../ui/pageActions';

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
    // Socket not connected: the HTTP route awards it.
    expect(app.api.freePoint).toHaveBeenCalledTimes(1);
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
    expect(app.socket.emittedNames()).toContain('increaseChatCount');
    expect(app.api.freePoint).not.toHaveBeenCalled();
    expect(app.state().user.user.chatCount).toBe(99);
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
