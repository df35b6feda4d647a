import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../lib/http';
import { pageEntered, pageLeft } from '../../lib/state/page';
import { userActions } from '../../lib/state/session';
import { startApp } from '../../testing/fake-services';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('user flows', () => {
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

  it('claim refused for a field (the image): back to the post form with the fields and the message; other refusals stay on the amount step', async () => {
    const app = startApp();
    const refused = 'Please make sure you select an image.';
    app.api.registerSpecialUser.mockRejectedValueOnce(new HttpError(400, { error: refused, fields: { image: refused } }));
    const image = new File(['%PDF'], 'me.png', { type: 'image/png' });
    const fields = { fullname: 'Ann', country: 'Spain', email: 'ann@example.com', link: 'https://example.com', message: 'Hello' };
    app.store.dispatch(userActions.claimRequested({ ...fields, image, passes: 2 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.navigate).toHaveBeenCalledWith('/content/post', { replace: true, state: { returned: { fields, errors: { image: refused } } } });
    expect(app.state().user).toMatchObject({ pending: false, claimError: '' });

    app.api.registerSpecialUser.mockRejectedValueOnce(new HttpError(400, { error: 'Not enough points' }));
    app.store.dispatch(userActions.claimRequested({ ...fields, image, passes: 2 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.navigate).toHaveBeenCalledTimes(1);
    expect(app.state().user.claimError).toBe('Not enough points');
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
