import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACCOUNT_ACCESS_MESSAGES } from '@pass/events/kernel';
import { HttpError } from '../../lib/http';
import { liveSignedOut } from '../../lib/state/live';
import { startApp } from '../../testing/fake-services';
import { passwordResetActions, selectLinkChecking } from './slice';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const run = () => vi.advanceTimersByTimeAsync(0);

describe('asking for a reset link', () => {
  it('posts the e-mail; the 202 shows the confirmation', async () => {
    const app = startApp();
    app.store.dispatch(passwordResetActions.resetRequested('ann@example.com'));
    expect(app.state().passwordReset.pending).toBe(true);
    await run();
    expect(app.api.requestPasswordReset).toHaveBeenCalledWith('ann@example.com');
    expect(app.state().passwordReset).toMatchObject({ pending: false, requested: true, errors: {} });
  });

  it('a 400 naming the e-mail goes beside it; a 429 with its wait above the form', async () => {
    const app = startApp();
    app.api.requestPasswordReset.mockRejectedValueOnce(new HttpError(400, { error: 'Invalid', fields: { email: 'Invalid Email' } }));
    app.store.dispatch(passwordResetActions.resetRequested('x@y'));
    await run();
    expect(app.state().passwordReset.errors).toEqual({ email: 'Invalid Email' });
    app.api.requestPasswordReset.mockRejectedValueOnce(new HttpError(429, { error: '', retryAfterSeconds: 1 }));
    app.store.dispatch(passwordResetActions.resetRequested('ann@example.com'));
    await run();
    expect(app.state().passwordReset.errors).toEqual({ form: 'Too many attempts. Please wait 1 second and try again.' });
    expect(app.state().passwordReset.requested).toBe(false);
  });
});

describe('setting the new password from the link', () => {
  it('posts the token and the password; 204 is done', async () => {
    const app = startApp();
    app.store.dispatch(passwordResetActions.confirmRequested({ token: 't1', password: 'new1' }));
    await run();
    expect(app.api.confirmPasswordReset).toHaveBeenCalledWith({ token: 't1', password: 'new1' });
    expect(app.state().passwordReset).toMatchObject({ done: true, pending: false, linkInvalid: false });
  });

  it('a used, expired or forged link (400) is said above the form, marked invalid', async () => {
    const app = startApp();
    app.api.confirmPasswordReset.mockRejectedValue(new HttpError(400, { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid }));
    app.store.dispatch(passwordResetActions.confirmRequested({ token: 'used', password: 'new1' }));
    await run();
    expect(app.state().passwordReset).toMatchObject({ done: false, linkInvalid: true, errors: { form: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } });
  });

  it("for the member signed in here: the live notice of the password change leaves this page be, and the device is a guest", async () => {
    const app = startApp({ userId: 'u1' });
    await run();
    let answer!: () => void;
    app.api.confirmPasswordReset.mockImplementationOnce(() => new Promise<void>((resolve) => (answer = resolve)));
    app.store.dispatch(passwordResetActions.confirmRequested({ token: 'u1.secret', password: 'new1' }));
    await run();
    // The server ends every session of the member, and says so over the socket before it answers.
    app.store.dispatch(liveSignedOut('password-changed'));
    await run();
    expect(app.navigate).not.toHaveBeenCalled();
    answer();
    await run();
    expect(app.state().passwordReset.done).toBe(true);
    expect(app.state().user).toMatchObject({ storedId: '', endedReason: '', resettingHere: '' });
    expect(app.state().user.user.id).toBe('');
    expect(app.storage.get('userId') ?? null).toBeNull();
    // A later notice finds a guest: still nothing to do.
    app.store.dispatch(liveSignedOut('password-changed'));
    await run();
    expect(app.navigate).not.toHaveBeenCalled();
  });

  it("for another member's link, the one signed in here stays signed in; elsewhere, the notice still sends a member to join", async () => {
    const app = startApp({ userId: 'u1' });
    await run();
    app.store.dispatch(passwordResetActions.confirmRequested({ token: 'u2.secret', password: 'new1' }));
    await run();
    expect(app.state().user.storedId).toBe('u1');
    app.store.dispatch(liveSignedOut('password-changed'));
    await run();
    expect(app.navigate).toHaveBeenCalledWith('/content/join', expect.anything());
  });

  it('opening the page again forgets the last visit', async () => {
    const app = startApp();
    app.store.dispatch(passwordResetActions.confirmRequested({ token: 't1', password: 'new1' }));
    await run();
    app.store.dispatch(passwordResetActions.opened(''));
    expect(app.state().passwordReset).toMatchObject({ done: false, requested: false, errors: {} });
  });
});

describe('the mailed link, on arrival', () => {
  it('is checked with its token in the body; a usable one shows the form', async () => {
    const app = startApp();
    app.store.dispatch(passwordResetActions.opened('t1'));
    expect(app.state().passwordReset).toMatchObject({ checking: true, linkInvalid: false });
    await run();
    expect(app.api.checkPasswordReset).toHaveBeenCalledWith('t1');
    expect(app.state().passwordReset).toMatchObject({ checking: false, linkInvalid: false, errors: {} });
  });

  it('a used or expired link (400) says so before anything is typed', async () => {
    const app = startApp();
    app.api.checkPasswordReset.mockRejectedValueOnce(new HttpError(400, { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid, fields: { token: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } }));
    app.store.dispatch(passwordResetActions.opened('used'));
    await run();
    expect(app.state().passwordReset).toMatchObject({ checking: false, linkInvalid: true, errors: { form: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid } });
  });

  it('any other failure leaves the form to the confirmation; the e-mail form checks nothing', async () => {
    const app = startApp();
    app.api.checkPasswordReset.mockRejectedValueOnce(new HttpError(503, { error: 'Service unavailable' }));
    app.store.dispatch(passwordResetActions.opened('t1'));
    await run();
    expect(app.state().passwordReset).toMatchObject({ checking: false, linkInvalid: false });
    app.store.dispatch(passwordResetActions.opened(''));
    await run();
    expect(app.api.checkPasswordReset).toHaveBeenCalledTimes(1);
    expect(app.state().passwordReset.checking).toBe(false);
  });
});

describe('the mailed link\'s form', () => {
  it('waits from the first render until the link is checked, and again for another link', async () => {
    const app = startApp();
    // Before the page's effect asks: no form to type into that the check would then take away.
    expect(selectLinkChecking(app.state(), 'tok-1')).toBe(true);
    app.store.dispatch(passwordResetActions.opened('tok-1'));
    expect(selectLinkChecking(app.state(), 'tok-1')).toBe(true);
    await run();
    expect(app.api.checkPasswordReset).toHaveBeenCalledWith('tok-1');
    expect(selectLinkChecking(app.state(), 'tok-1')).toBe(false);
    // Another link opened in the same tab is not the one checked.
    expect(selectLinkChecking(app.state(), 'tok-2')).toBe(true);
  });
});
