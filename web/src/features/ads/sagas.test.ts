import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startApp } from '../../testing/fake-services';
import { popupActions } from '../../lib/state/popup';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('ads popup', () => {
  it('shows 6 s after the cookie is accepted, then every 300,000 ms', async () => {
    const app = startApp();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(app.state().popup.showPopup).toBe(false);
    app.store.dispatch(popupActions.cookieAccepted());
    expect(app.storage.get('acceptedCookie')).toBe('true');
    await vi.advanceTimersByTimeAsync(5_999);
    expect(app.state().popup.showPopup).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().popup.showPopup).toBe(true);
    expect(app.state().popup.seconds).toBe(10);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(app.state().popup.showPopup).toBe(false);
    await vi.advanceTimersByTimeAsync(300_000 - 10_000 - 1);
    expect(app.state().popup.showPopup).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().popup.showPopup).toBe(true);
  });

  it('accepted before: the first popup waits for the 7 s ad-block check', async () => {
    const app = startApp({ acceptedCookie: 'true' });
    await vi.advanceTimersByTimeAsync(6999);
    expect(app.state().popup.showPopup).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().popup.adBlockCheckDone).toBe(true);
    expect(app.state().popup.showPopup).toBe(true);
  });

  it('accepted after the check: 6 s after the acceptance', async () => {
    const app = startApp();
    await vi.advanceTimersByTimeAsync(3000);
    app.store.dispatch(popupActions.cookieAccepted());
    await vi.advanceTimersByTimeAsync(5999);
    expect(app.state().popup.showPopup).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().popup.showPopup).toBe(true);
  });

  it('counts 10 → 0; the banners are checked at 9 s; loaded → hidden and reset', async () => {
    const app = startApp({ acceptedCookie: 'true' });
    await vi.advanceTimersByTimeAsync(7000);
    await vi.advanceTimersByTimeAsync(3000);
    expect(app.state().popup.seconds).toBe(7);
    await vi.advanceTimersByTimeAsync(5_999);
    expect(app.state().popup.bannerTwoLoaded).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().popup.seconds).toBe(1);
    expect(app.state().popup.bannerTwoLoaded).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(app.state().popup).toMatchObject({ showPopup: false, seconds: 10, bannerTwoLoaded: false });
    expect(app.redirectHome).not.toHaveBeenCalled();
  });

  it('at 0 with the banners not loaded: "Network connection lost" and home', async () => {
    const app = startApp({ acceptedCookie: 'true' });
    app.ads.popup = { slots: 3, loaded: 2 };
    await vi.advanceTimersByTimeAsync(16_999);
    expect(app.toasts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.toasts).toContainEqual({ kind: 'error', message: 'Network connection lost' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(app.redirectHome).toHaveBeenCalledTimes(1);
  });

  it('the X works only once the banners loaded', async () => {
    const app = startApp({ acceptedCookie: 'true' });
    await vi.advanceTimersByTimeAsync(7000 + 2000);
    app.store.dispatch(popupActions.adsCloseRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().popup.showPopup).toBe(true);
    await vi.advanceTimersByTimeAsync(7000);
    expect(app.state().popup.bannerTwoLoaded).toBe(true);
    app.store.dispatch(popupActions.adsCloseRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().popup).toMatchObject({ showPopup: false, seconds: 10, bannerTwoLoaded: false });
    await vi.advanceTimersByTimeAsync(5000);
    expect(app.redirectHome).not.toHaveBeenCalled();
  });

  it('is never shown to an admin', async () => {
    const app = startApp({ acceptedCookie: 'true', adminId: 'a1' });
    await vi.advanceTimersByTimeAsync(700_000);
    expect(app.state().admin.authorized).toBe(true);
    expect(app.state().popup.showPopup).toBe(false);
  });

  it('a detected blocker: the notice, and no popup ever (the member is not sent home)', async () => {
    const app = startApp({ acceptedCookie: 'true' });
    app.ads.main = { slots: 1, loaded: 0 };
    app.ads.popup = { slots: 3, loaded: 0 };
    await vi.advanceTimersByTimeAsync(7000);
    expect(app.state().popup.blockMessage).toBe(true);
    expect(app.state().popup.showPopup).toBe(false);
    for (let i = 0; i < 3; i++) {
      await vi.advanceTimersByTimeAsync(300_000);
      expect(app.state().popup.showPopup).toBe(false);
    }
    expect(app.toasts).toEqual([]);
    expect(app.redirectHome).not.toHaveBeenCalled();
  });
});

describe('ad-block detection', () => {
  it('7 s after start: no main banner iframe → blocked', async () => {
    const app = startApp();
    app.ads.main = { slots: 2, loaded: 0 };
    await vi.advanceTimersByTimeAsync(6_999);
    expect(app.state().popup.blockMessage).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().popup.blockMessage).toBe(true);
  });

  it('7 s after start: a main banner iframe → allowed', async () => {
    const app = startApp();
    await vi.advanceTimersByTimeAsync(7000);
    expect(app.state().popup.blockMessage).toBe(false);
  });
});
