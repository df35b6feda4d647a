import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../api/http';
import { startApp, sampleMainData, sampleUser } from '../../testing/fakeServices';
import { pageEntered } from '../ui/pageActions';
import { usersActions } from './usersSlice';
import { updateMainDataActions } from './updateMainDataSlice';
import { mainDataActions } from './mainDataSlice';
import { checkActions } from '../check/slice';

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

  it('fetches the stored user; a refused id is forgotten and the overlay cleared', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.verifyAccess).toHaveBeenCalledWith('u1');
    expect(app.state().user.user.email).toBe(sampleUser.email);
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

  it('searches are debounced', async () => {
    const app = startApp();
    app.store.dispatch(usersActions.rankingRequested('a'));
    app.store.dispatch(usersActions.rankingRequested('an'));
    await vi.advanceTimersByTimeAsync(100);
    app.store.dispatch(usersActions.rankingRequested('ann'));
    await vi.advanceTimersByTimeAsync(250);
    expect(app.api.ranking).toHaveBeenCalledTimes(1);
    expect(app.api.ranking).toHaveBeenCalledWith('ann');
    expect(app.state().users.ranking.loaded).toBe(true);
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

describe('start with a failing server', () => {
  it('a 401 on the stored id forgets it and clears the overlay', async () => {
    const { makeHarness } = await import('../../testing/fakeServices');
    const { createAppStore } = await import('../../app/store');
    const h = makeHarness({ userId: 'stale' });
    h.api.verifyAccess.mockRejectedValue(new HttpError(401, { error: 'Not signed in' }));
    h.api.mainData.mockImplementation(() => new Promise(() => {}));
    const store = createAppStore(h.services);
    await vi.advanceTimersByTimeAsync(0);
    expect(h.storage.has('userId')).toBe(false);
    expect(store.getState().user.storedId).toBe('');
    expect(store.getState().loading.isLoading).toBe(false);
  });

  it('the overlay auto-hides after 60 s when main data never comes', async () => {
    const { makeHarness } = await import('../../testing/fakeServices');
    const { createAppStore } = await import('../../app/store');
    const h = makeHarness();
    h.api.mainData.mockImplementation(() => new Promise(() => {}));
    const store = createAppStore(h.services);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(store.getState().loading.isLoading).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().loading.isLoading).toBe(false);
  });
});
