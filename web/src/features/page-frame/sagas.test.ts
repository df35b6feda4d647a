import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pageEntered } from '../../lib/state/page';
import { updateMainDataActions } from '../../lib/state/site';
import { startApp, sampleMainData } from '../../testing/fake-services';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('start', () => {
  it('loads main data, countries and the chat; the overlay hides when main data arrives', async () => {
    const app = startApp();
    expect(app.state().loading.isLoading).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().mainData.data).toMatchObject({ sold: sampleMainData.sold, fundsRaised: sampleMainData.fundsRaised });
    expect(app.state().mainData.countries.distinct).toBe(1);
    expect(app.api.chatMessages).toHaveBeenCalled();
    expect(app.state().loading.isLoading).toBe(false);
    // Guests are not fetched.
    expect(app.api.verifyAccess).not.toHaveBeenCalled();
  });

  it('welcome toast 2 s after home first shows, once', async () => {
    const app = startApp();
    app.store.dispatch(pageEntered('home'));
    await vi.advanceTimersByTimeAsync(1999);
    expect(app.toasts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.toasts).toEqual([{ kind: 'blank', message: 'Welcome to Freedom Pass!' }]);
    app.store.dispatch(pageEntered('home'));
    await vi.advanceTimersByTimeAsync(5000);
    expect(app.toasts).toHaveLength(1);
  });

  it('the updateMainData flag refreshes main data and clears itself', async () => {
    const app = startApp();
    await vi.advanceTimersByTimeAsync(0);
    app.api.mainData.mockResolvedValueOnce({ ...sampleMainData, sold: 777 });
    app.store.dispatch(updateMainDataActions.updateMainDataSet(true));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().mainData.data.sold).toBe(777);
    expect(app.state().updateMainData.updateMainData).toBe(false);
  });
});

describe('start with a failing server', () => {
  it('the overlay auto-hides after 60 s when main data never comes', async () => {
    const { createAppStore, makeHarness } = await import('../../testing/fake-services');
    const h = makeHarness();
    h.api.mainData.mockImplementation(() => new Promise(() => {}));
    const store = createAppStore(h.services);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(store.getState().loading.isLoading).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().loading.isLoading).toBe(false);
  });
});
