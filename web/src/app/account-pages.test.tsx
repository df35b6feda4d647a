import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within, cleanup } from '@testing-library/react';
import { ACCOUNT_ACCESS_MESSAGES } from '@pass/events/kernel';
import { HttpError } from '../lib/http';
import { JOIN_REASONS } from '../lib/join-reason';
import { sampleUser } from '../testing/fake-services';
import { renderApp, useAppHarness } from '../testing/render-app';

// The account pages through the real router and store on fake services: "Your data", the reset
// page, and the links that lead there.

useAppHarness();

const member = { userId: 'u1' };

/** The control described by the field's error: its aria-describedby names the message. */
function describedErrorOf(input: HTMLElement): string {
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ');
  return ids.map((id) => document.getElementById(id)).find((el) => el?.classList.contains('error'))?.textContent ?? '';
}

describe('links to the new pages', () => {
  it('a member finds "Your data" in the side menu and in the participants header; a guest in neither', async () => {
    const app = renderApp('/content/participants', { storage: member });
    // The participants header and the side menu both link it (the side menu is inert while closed).
    // The lazy page and the stored member's fetch both come first (slow on a busy machine).
    await waitFor(() => expect(document.querySelectorAll('a[href="/content/my-data"]')).toHaveLength(2), { timeout: 5000 });
    const participants = screen.getByRole('region', { name: 'Participants' });
    expect(within(participants).getByRole('link', { name: 'Your data' }).getAttribute('href')).toBe('/content/my-data');
    fireEvent.click(screen.getByRole('button', { name: 'Open menu' }));
    // The open menu renders on React's next pass, which a busy machine may not have run yet.
    const menu = await screen.findByRole('navigation', { name: 'Side menu' });
    fireEvent.click(within(menu).getByRole('link', { name: 'Your data' }));
    await screen.findByRole('heading', { name: 'Your data', level: 1 }, { timeout: 5000 });
    expect(app.router.state.location.pathname).toBe('/content/my-data');
    cleanup();
    renderApp('/content/participants');
    await screen.findByRole('heading', { name: 'Participants' }, { timeout: 5000 });
    expect(document.querySelector('a[href="/content/my-data"]')).toBeNull();
  });

  it('the join form links "Forgot your password?" to the e-mail form', async () => {
    const app = renderApp('/content/join');
    fireEvent.click(await screen.findByRole('link', { name: 'Forgot your password?' }));
    await screen.findByRole('heading', { name: 'Forgot your password?' });
    expect(app.router.state.location.pathname).toBe('/content/reset-password');
  });
});

describe('Your data', () => {
  it('a guest is sent to join, which says why', async () => {
    const app = renderApp('/content/my-data');
    await screen.findByRole('heading', { name: 'Join Freedom Pass' });
    expect(app.router.state.location.pathname).toBe('/content/join');
    expect(screen.getByRole('status').textContent).toBe(JOIN_REASONS['my-data']);
  });

  it('download hands the file to the browser', async () => {
    const app = renderApp('/content/my-data', { storage: member });
    fireEvent.click(await screen.findByRole('button', { name: 'Download my data' }));
    await waitFor(() => expect(app.saveFile).toHaveBeenCalledWith(expect.objectContaining({ filename: 'my-data.json' })));
  });

  it('change password: the kernel rules before sending, then the server 400 beside the current password, focused', async () => {
    const app = renderApp('/content/my-data', {
      storage: member,
      setup: (h) => h.api.changePassword.mockRejectedValueOnce(new HttpError(400, { error: ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword })),
    });
    const current = await screen.findByLabelText('Current password');
    const next = screen.getByLabelText('New password');
    const submit = screen.getByRole('button', { name: 'Change password' });
    fireEvent.click(submit);
    expect(await screen.findByText(ACCOUNT_ACCESS_MESSAGES.currentPasswordRequired)).toBeTruthy();
    expect(describedErrorOf(next)).toBe(ACCOUNT_ACCESS_MESSAGES.newPasswordRequired);
    expect(document.activeElement).toBe(current);
    fireEvent.input(current, { target: { value: 'wrong1' } });
    fireEvent.input(next, { target: { value: 'toolongpassword' } });
    expect(await screen.findByText('Please do not exceed 8 characters')).toBeTruthy();
    expect(app.api.changePassword).not.toHaveBeenCalled();
    fireEvent.input(next, { target: { value: 'pass2' } });
    fireEvent.click(submit);
    await waitFor(() => expect(describedErrorOf(current)).toBe(ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword));
    expect(app.api.changePassword).toHaveBeenCalledWith({ currentPassword: 'wrong1', newPassword: 'pass2' });
    expect(document.activeElement).toBe(current);
    // Right this time: said in the section, the form emptied.
    fireEvent.input(current, { target: { value: 'pass1' } });
    fireEvent.click(submit);
    expect((await screen.findByRole('status')).textContent).toMatch(/^Your password has been changed\./);
    expect((current as HTMLInputElement).value).toBe('');
  });

  it('a 401 on any action sends the member to join with the line', async () => {
    const app = renderApp('/content/my-data', {
      storage: member,
      setup: (h) => h.api.logoutEverywhere.mockRejectedValue(new HttpError(401, { error: 'Not signed in' })),
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Sign out everywhere' }));
    await screen.findByRole('heading', { name: 'Join Freedom Pass' });
    expect(app.router.state.location.pathname).toBe('/content/join');
    expect(screen.getByRole('status').textContent).toBe(JOIN_REASONS['my-data']);
  });

  it('sign out everywhere: signed out, on the join page, which says so (not why a guest cannot see "Your data")', async () => {
    const app = renderApp('/content/my-data', { storage: member });
    fireEvent.click(await screen.findByRole('button', { name: 'Sign out everywhere' }));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/content/join'));
    expect(app.store.getState().user.user.email).toBe('');
    expect((await screen.findByRole('status')).textContent).toBe('You have been signed out on every device.');
  });

  it('delete: the dialog names what goes and asks for the password; a wrong one shows beside it', async () => {
    const app = renderApp('/content/my-data', {
      storage: member,
      setup: (h) => {
        h.api.verifyAccess.mockResolvedValue({ ...sampleUser, chatCount: 1234, passes: 2 });
        h.api.deleteMyAccount.mockRejectedValueOnce(new HttpError(400, { error: 'Your password is not correct' }));
      },
    });
    await waitFor(() => expect(app.store.getState().user.user.chatCount).toBe(1234));
    fireEvent.click(await screen.findByRole('button', { name: 'Delete my account' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' });
    const losses = within(dialog).getAllByRole('listitem').map((li) => li.textContent);
    expect(losses).toEqual([
      'Your points (1,234).',
      'Your passes (2) and your certificate.',
      'Your posted card and its image.',
      'The authorship of your chat messages: your name no longer shows on them.',
    ]);
    expect(within(dialog).getByText(/totals .* stay as they are/)).toBeTruthy();
    const confirm = within(dialog).getByRole('button', { name: 'Delete my account for good' });
    fireEvent.click(confirm);
    expect(await within(dialog).findByText('Please enter your password')).toBeTruthy();
    expect(app.api.deleteMyAccount).not.toHaveBeenCalled();
    const password = within(dialog).getByLabelText('Your password');
    fireEvent.input(password, { target: { value: 'nope1' } });
    fireEvent.click(confirm);
    await waitFor(() => expect(describedErrorOf(password)).toBe('Your password is not correct'));
    expect(document.activeElement).toBe(password);
    fireEvent.input(password, { target: { value: 'pass1' } });
    fireEvent.click(confirm);
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/content/join'));
    expect((await screen.findByRole('status')).textContent).toBe('Your account has been deleted.');
    expect(app.api.deleteMyAccount).toHaveBeenLastCalledWith('pass1');
    expect(app.store.getState().user.user.email).toBe('');
    expect(screen.queryByRole('dialog', { name: 'Delete your account?' })).toBeNull();
  });

  it('Cancel closes the dialog without deleting', async () => {
    const app = renderApp('/content/my-data', { storage: member });
    fireEvent.click(await screen.findByRole('button', { name: 'Delete my account' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.deleteMyAccount).not.toHaveBeenCalled();
  });
});

describe('reset password', () => {
  it('the e-mail form checks the join rule, posts, and always shows the same confirmation', async () => {
    const app = renderApp('/content/reset-password');
    const email = await screen.findByLabelText('Email');
    fireEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect(await screen.findByText('Enter an email')).toBeTruthy();
    expect(document.activeElement).toBe(email);
    fireEvent.input(email, { target: { value: 'nobody@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect((await screen.findByRole('status')).textContent).toBe(ACCOUNT_ACCESS_MESSAGES.resetRequested);
    expect(app.api.requestPasswordReset).toHaveBeenCalledWith('nobody@example.com');
  });

  it('a 429 on the e-mail form shows the wait above the form', async () => {
    renderApp('/content/reset-password', {
      setup: (h) => h.api.requestPasswordReset.mockRejectedValue(new HttpError(429, { error: 'Too many requests. Please wait 1 minute and try again.', retryAfterSeconds: 60 })),
    });
    fireEvent.input(await screen.findByLabelText('Email'), { target: { value: 'ann@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Too many requests. Please wait 1 minute and try again.');
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('the link page: new password twice, then a success line with a link to sign in', async () => {
    const app = renderApp('/content/reset-password#token=tok-1');
    const password = await screen.findByLabelText('New password');
    const repeat = screen.getByLabelText('Repeat the new password');
    fireEvent.input(password, { target: { value: 'new1' } });
    fireEvent.input(repeat, { target: { value: 'new2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set my new password' }));
    await waitFor(() => expect(describedErrorOf(repeat)).toBe('The two passwords do not match'));
    expect(app.api.confirmPasswordReset).not.toHaveBeenCalled();
    fireEvent.input(repeat, { target: { value: 'new1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set my new password' }));
    const done = await screen.findByRole('status');
    expect(done.textContent).toBe('Your new password is set. Sign in with it');
    expect(within(done).getByRole('link', { name: 'Sign in with it' }).getAttribute('href')).toBe('/content/join');
    expect(app.api.confirmPasswordReset).toHaveBeenCalledWith({ token: 'tok-1', password: 'new1' });
  });

  it('takes the token out of the address bar once read (a link of either form), and keeps it for a reload in the history entry only', async () => {
    for (const link of ['/content/reset-password#token=tok-2', '/content/reset-password?token=tok-2']) {
      const app = renderApp(link);
      await screen.findByLabelText('New password');
      await waitFor(() => expect(app.router.state.location).toMatchObject({ pathname: '/content/reset-password', search: '', hash: '' }));
      expect(JSON.stringify(app.router.state.location.state)).toContain('tok-2');
      fireEvent.input(screen.getByLabelText('New password'), { target: { value: 'new1' } });
      fireEvent.input(screen.getByLabelText('Repeat the new password'), { target: { value: 'new1' } });
      fireEvent.click(screen.getByRole('button', { name: 'Set my new password' }));
      await screen.findByRole('status');
      expect(app.api.confirmPasswordReset).toHaveBeenCalledWith({ token: 'tok-2', password: 'new1' });
      cleanup();
    }
    // A reload of the cleaned address: the token comes back from the history entry's state.
    const reloaded = renderApp({ pathname: '/content/reset-password', state: { resetToken: 'tok-3' } });
    expect(await screen.findByLabelText('New password')).toBeTruthy();
    expect(reloaded.router.state.location.hash).toBe('');
  });

  it('a used or expired link (400) says so, with a link to ask for a new one', async () => {
    renderApp('/content/reset-password#token=used', {
      setup: (h) => h.api.confirmPasswordReset.mockRejectedValue(new HttpError(400, { error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid })),
    });
    fireEvent.input(await screen.findByLabelText('New password'), { target: { value: 'new1' } });
    fireEvent.input(screen.getByLabelText('Repeat the new password'), { target: { value: 'new1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set my new password' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(`${ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid} Ask for a new link`);
    expect(within(alert).getByRole('link', { name: 'Ask for a new link' }).getAttribute('href')).toBe('/content/reset-password');
  });
});
