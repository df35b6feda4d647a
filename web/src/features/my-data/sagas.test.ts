import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../lib/http';
import { JOIN_REASONS, joinReasonText } from '../../lib/join-reason';
import { startApp } from '../../testing/fake-services';
import { myDataActions } from './slice';
import { MY_DATA_TEXTS } from './texts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A signed-in member whose start-up fetch is done. */
async function member() {
  const app = startApp({ userId: 'u1' });
  await vi.advanceTimersByTimeAsync(0);
  return app;
}

const run = () => vi.advanceTimersByTimeAsync(0);

describe('download', () => {
  it('hands the server file to the browser under its name', async () => {
    const app = await member();
    const file = { blob: new Blob(['{"timeline":[{"type":"UserRegistered"}]}']), filename: 'my-data-u1.json' };
    app.api.myData.mockResolvedValue(file);
    app.store.dispatch(myDataActions.downloadRequested());
    await run();
    expect(app.saveFile).toHaveBeenCalledWith(file);
    expect(app.toasts).toEqual([{ kind: 'success', message: MY_DATA_TEXTS.downloaded }]);
    expect(app.state().myData.pending).toBeNull();
  });

  it('a 401 (session gone) forgets the member and sends them to join, which says why', async () => {
    const app = await member();
    app.api.myData.mockRejectedValue(new HttpError(401, { error: 'Not signed in' }));
    app.store.dispatch(myDataActions.downloadRequested());
    await run();
    expect(app.storage.has('userId')).toBe(false);
    expect(app.state().user.user.email).toBe('');
    expect(app.navigate).toHaveBeenCalledWith('/content/join', { state: { joinReason: 'my-data' } });
    expect(joinReasonText(app.navigate.mock.calls[0]![1]!.state)).toBe(JOIN_REASONS['my-data']);
    expect(app.saveFile).not.toHaveBeenCalled();
  });

  it('a 429 shows the wait in the section: the server words, else the wait alone', async () => {
    const app = await member();
    app.api.myData.mockRejectedValueOnce(new HttpError(429, { error: 'Too many downloads. Please wait 30 seconds and try again.', retryAfterSeconds: 30 }));
    app.store.dispatch(myDataActions.downloadRequested());
    await run();
    expect(app.state().myData.errors.download).toBe('Too many downloads. Please wait 30 seconds and try again.');
    app.api.myData.mockRejectedValueOnce(new HttpError(429, { error: '', retryAfterSeconds: 5 }));
    app.store.dispatch(myDataActions.downloadRequested());
    await run();
    expect(app.state().myData.errors.download).toBe('Too many attempts. Please wait 5 seconds and try again.');
  });
});

describe('change password', () => {
  const form = { currentPassword: 'pass1', newPassword: 'pass2' };

  it('posts both passwords; success is said and nothing else changes', async () => {
    const app = await member();
    app.store.dispatch(myDataActions.changePasswordRequested(form));
    expect(app.state().myData.pending).toBe('changePassword');
    await run();
    expect(app.api.changePassword).toHaveBeenCalledWith(form);
    expect(app.state().myData).toMatchObject({ pending: null, passwordChanged: true, errors: {} });
    expect(app.state().user.user.email).toBe('ann@example.com');
  });

  it('a 400 goes beside the current password; a 400 naming the new one beside it', async () => {
    const app = await member();
    app.api.changePassword.mockRejectedValueOnce(new HttpError(400, { error: 'Your current password is not correct' }));
    app.store.dispatch(myDataActions.changePasswordRequested(form));
    await run();
    expect(app.state().myData.errors).toEqual({ currentPassword: 'Your current password is not correct' });
    expect(app.state().myData.passwordChanged).toBe(false);
    app.api.changePassword.mockRejectedValueOnce(new HttpError(400, { error: 'Invalid', fields: { newPassword: 'Please do not exceed 8 characters' } }));
    app.store.dispatch(myDataActions.changePasswordRequested(form));
    await run();
    expect(app.state().myData.errors).toEqual({ newPassword: 'Please do not exceed 8 characters' });
  });
});

describe('sign out everywhere', () => {
  it('ends this session too: signed out, on the join page, which says so', async () => {
    const app = await member();
    app.store.dispatch(myDataActions.logoutEverywhereRequested());
    await run();
    expect(app.api.logoutEverywhere).toHaveBeenCalled();
    expect(app.storage.has('userId')).toBe(false);
    expect(app.state().user.user.email).toBe('');
    expect(app.state().user.endedReason).toBe('signed-out-everywhere');
    expect(app.navigate).toHaveBeenCalledWith('/content/join', { replace: true, state: { joinReason: 'signed-out-everywhere' } });
    expect(joinReasonText(app.navigate.mock.calls[0]![1]!.state)).toBe('You have been signed out on every device.');
  });

  it('a failure keeps the member signed in and says why in the section', async () => {
    const app = await member();
    app.api.logoutEverywhere.mockRejectedValue(new TypeError('Failed to fetch'));
    app.store.dispatch(myDataActions.logoutEverywhereRequested());
    await run();
    expect(app.state().user.user.email).toBe('ann@example.com');
    expect(app.state().myData.errors.logoutEverywhere).toBe('Failed to fetch');
    expect(app.navigate).not.toHaveBeenCalled();
  });
});

describe('delete account', () => {
  it('sends the password; after 204 the member is signed out, on the join page, which says so', async () => {
    const app = await member();
    app.store.dispatch(myDataActions.deleteDialogOpened());
    app.store.dispatch(myDataActions.deleteAccountRequested('pass1'));
    await run();
    expect(app.api.deleteMyAccount).toHaveBeenCalledWith('pass1');
    expect(app.storage.has('userId')).toBe(false);
    expect(app.state().user.user.email).toBe('');
    expect(app.state().myData.confirmingDelete).toBe(false);
    expect(app.state().user.endedReason).toBe('account-deleted');
    expect(app.navigate).toHaveBeenCalledWith('/content/join', { replace: true, state: { joinReason: 'account-deleted' } });
    expect(joinReasonText(app.navigate.mock.calls[0]![1]!.state)).toBe('Your account has been deleted.');
  });

  it('a wrong password (400) goes beside the dialog field; the dialog and the member stay', async () => {
    const app = await member();
    app.api.deleteMyAccount.mockRejectedValue(new HttpError(400, { error: 'Wrong password' }));
    app.store.dispatch(myDataActions.deleteDialogOpened());
    app.store.dispatch(myDataActions.deleteAccountRequested('nope'));
    await run();
    expect(app.state().myData).toMatchObject({ confirmingDelete: true, errors: { password: 'Wrong password' }, pending: null });
    expect(app.state().user.user.email).toBe('ann@example.com');
    expect(app.navigate).not.toHaveBeenCalled();
  });
});
