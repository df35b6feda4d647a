import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../lib/http';
import { userActions } from '../../lib/state/session';
import { joinReasonText } from '../../lib/join-reason';
import { startApp, sampleUser } from '../../testing/fake-services';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('user flows', () => {
  it('register: stores the id, sets the user, refreshes main data, goes to /content/check', async () => {
    const app = startApp();
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(userActions.registerRequested({ email: 'ann@example.com', password: 'pass' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.storage.get('userId')).toBe('u1');
    expect(app.state().user.user.email).toBe(sampleUser.email);
    expect(app.state().user.user).not.toHaveProperty('registered');
    expect(app.api.mainData).toHaveBeenCalledTimes(2);
    expect(app.navigate).toHaveBeenCalledWith('/content/check');
  });

  it('register failure: the server text is kept for the form', async () => {
    const app = startApp();
    app.api.registerUser.mockRejectedValue(new HttpError(401, { error: 'Wrong password' }));
    app.store.dispatch(userActions.registerRequested({ email: 'ann@example.com', password: 'nope' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().user.registerError).toBe('Wrong password');
    expect(app.navigate).not.toHaveBeenCalled();
  });

  it('logout clears the stored id and the user', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(userActions.logoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.logout).toHaveBeenCalled();
    expect(app.storage.has('userId')).toBe(false);
    expect(app.state().user.user.email).toBe('');
  });
});

describe('start', () => {
  it('fetches the stored user; a refused id is forgotten and the overlay cleared', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.verifyAccess).toHaveBeenCalledWith('u1');
    expect(app.state().user.user.email).toBe(sampleUser.email);
  });
});

describe('start with a failing server', () => {
  it('a 401 on the stored id forgets it and clears the overlay', async () => {
    const { createAppStore, makeHarness } = await import('../../testing/fake-services');
    const h = makeHarness({ userId: 'stale' });
    h.api.verifyAccess.mockRejectedValue(new HttpError(401, { error: 'Not signed in' }));
    h.api.mainData.mockImplementation(() => new Promise(() => {}));
    const store = createAppStore(h.services);
    await vi.advanceTimersByTimeAsync(0);
    expect(h.storage.has('userId')).toBe(false);
    expect(store.getState().user.storedId).toBe('');
    expect(store.getState().loading.isLoading).toBe(false);
  });
});

describe('a session ended elsewhere (the live connection says so)', () => {
  it('the member becomes a guest on the join page, which says why; the socket reconnects as a guest', async () => {
    const app = startApp({ userId: 'u1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().user.user.email).not.toBe('');
    const reconnects = app.socket.reconnects;
    app.socket.serverEmit('signedOut', { reason: 'deleted' });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().user.user.email).toBe('');
    expect(app.storage.has('userId')).toBe(false);
    expect(app.state().user.endedReason).toBe('deleted-elsewhere');
    expect(app.navigate).toHaveBeenCalledWith('/content/join', { state: { joinReason: 'deleted-elsewhere' } });
    expect(joinReasonText(app.navigate.mock.calls[0]![1]!.state)).toBe('You were signed out: your account has been deleted.');
    expect(app.socket.reconnects).toBe(reconnects + 1);
  });

  it('a guest page (it signed out itself) does nothing', async () => {
    const app = startApp();
    await vi.advanceTimersByTimeAsync(0);
    app.socket.serverEmit('signedOut', { reason: 'everywhere' });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.navigate).not.toHaveBeenCalled();
    expect(app.state().user.endedReason).toBe('');
  });
});
