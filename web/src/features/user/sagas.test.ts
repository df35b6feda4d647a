import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../api/http';
import { startApp, sampleUser } from '../../testing/fakeServices';
import { pageEntered, pageLeft } from '../ui/pageActions';
import { userActions } from './slice';

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

  it('claim: multipart upload, new-member flag, home', async () => {
    const app = startApp();
    const image = new File(['x'], 'me.png', { type: 'image/png' });
    app.store.dispatch(
      userActions.claimRequested({ fullname: 'Ann', country: 'Spain', email: 'ann@example.com', link: 'https://example.com', message: 'Hello', image, passes: 2 }),
    );
    await vi.advanceTimersByTimeAsync(0);
    const form = app.api.registerSpecialUser.mock.calls[0]?.[0] as FormData;
    expect(form.get('passes')).toBe('2');
    expect(form.get('fullname')).toBe('Ann');
    expect((form.get('image') as File).name).toBe('me.png');
    expect(app.state().user.newMember).toBe(true);
    expect(app.state().user.user.passes).toBe(1);
    expect(app.navigate).toHaveBeenCalledWith('/');
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

  it('"Join us" 3 s after the post form opens; not when left before', async () => {
    const app = startApp();
    app.store.dispatch(pageEntered('post'));
    await vi.advanceTimersByTimeAsync(2999);
    expect(app.toasts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.toasts).toEqual([{ kind: 'blank', message: 'Join us' }]);

    const other = startApp();
    other.store.dispatch(pageEntered('post'));
    await vi.advanceTimersByTimeAsync(1000);
    other.store.dispatch(pageLeft('post'));
    await vi.advanceTimersByTimeAsync(5000);
    expect(other.toasts).toEqual([]);
  });
});
