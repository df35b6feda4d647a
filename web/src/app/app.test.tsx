import { describe, expect, it } from 'vitest';
import { act, fireEvent, screen, waitFor, within, cleanup } from '@testing-library/react';
import { dayCounter } from '@pass/events/kernel';
import { HttpError } from '../lib/http';
import { POST_FORM_RETURNED, type PostFormState } from '../features/pass-claim';
import { OUT_OF_POINTS } from '../features/free-points';
import { JOIN_REASONS } from '../lib/join-reason';
import { sampleMainData, sampleUser } from '../testing/fake-services';
import { renderApp, useAppHarness } from '../testing/render-app';

useAppHarness();

const member = { userId: 'u1' };

describe('home', () => {
  it('shows the hero, the stats and the join link for guests', async () => {
    renderApp('/');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(
      "Get Your Free Pass Today! Let's Reach 1 million Passes in 365 days",
    );
    expect(await screen.findByText('1,000')).toBeTruthy();
    expect(screen.getByText('Available Passes')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Join' }).getAttribute('href')).toBe('/content/join');
    expect(screen.getByRole('link', { name: 'Request Your Pass' }).getAttribute('href')).toBe('/content/join');
    expect(screen.getByText("Let's get 1 million Members!")).toBeTruthy();
    expect(screen.getByText(`Day ${dayCounter(sampleMainData.startDate, Date.now())}`)).toBeTruthy();
  });

  it('the join link goes to /content/check once registered', async () => {
    renderApp('/', { storage: member });
    await waitFor(() => expect(screen.getByRole('link', { name: 'Join' }).getAttribute('href')).toBe('/content/check'));
  });

  it('cookie notice: privacy text expands, accepting stores "true"', async () => {
    const app = renderApp('/', { storage: { acceptedCookie: '' } });
    const notice = screen.getByRole('region', { name: 'Cookie notice' });
    fireEvent.click(within(notice).getByRole('button', { name: 'Read privacy policy' }));
    expect(notice.textContent).toContain('name, e-mail, country and preferences');
    expect(notice.textContent).toContain('IP address or browser type');
    expect(notice.textContent).toContain('24 hours');
    fireEvent.click(within(notice).getByRole('button', { name: 'Hide privacy policy' }));
    expect(notice.textContent).not.toContain('IP address');
    fireEvent.click(within(notice).getByRole('button', { name: 'Accept' }));
    expect(screen.queryByRole('region', { name: 'Cookie notice' })).toBeNull();
    expect(app.storage.get('acceptedCookie')).toBe('true');
  });

  it('the side menu opens with the menu button and closes on a link click', async () => {
    const app = renderApp('/');
    fireEvent.click(screen.getByRole('button', { name: 'Open menu' }));
    expect(app.store.getState().sidebar.sidebarStatus).toBe(true);
    const menu = screen.getByRole('complementary', { name: 'Menu' });
    fireEvent.click(within(menu).getByRole('link', { name: 'Participants' }));
    expect(app.store.getState().sidebar.sidebarStatus).toBe(false);
  });
});

describe('guards', () => {
  it('guests asking for points or the certificate are sent to join', async () => {
    renderApp('/content/points');
    expect(await screen.findByRole('heading', { name: 'Join Freedom Pass' })).toBeTruthy();
    cleanup();
    renderApp('/content/certificate');
    expect(await screen.findByRole('heading', { name: 'Join Freedom Pass' })).toBeTruthy();
  });

  it('registered users asking for join are sent to participants', async () => {
    renderApp('/content/join', { storage: member });
    expect(await screen.findByRole('heading', { name: 'Participants' })).toBeTruthy();
  });

  it('a registered user without passes asking for the certificate gets the post form', async () => {
    renderApp('/content/certificate', { storage: member });
    expect(await screen.findByRole('button', { name: 'Get Freedom Pass!' })).toBeTruthy();
  });

  it('a member sees the certificate and can print it', async () => {
    renderApp('/content/certificate', {
      storage: member,
      setup: (h) => h.api.verifyAccess.mockResolvedValue({ ...sampleUser, fullname: 'Ann Smith', passes: 3 }),
    });
    expect(await screen.findByText('Ann Smith')).toBeTruthy();
    expect(screen.getByText('02/01/2026')).toBeTruthy();
    let printed = 0;
    window.print = () => void printed++;
    fireEvent.click(screen.getByRole('button', { name: 'Download Certificate' }));
    expect(printed).toBe(1);
  });

  it('the amount page without the post form data goes back to the post form', async () => {
    renderApp('/content/amount', { storage: member });
    expect(await screen.findByRole('button', { name: 'Get Freedom Pass!' })).toBeTruthy();
  });

  it('the admin certificate without a selected user goes to the root', async () => {
    const app = renderApp('/content/admin-certificate', { storage: { adminId: 'a1' } });
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/'));
  });

  it('the admin landing shows the login, or the dashboard when authorized', async () => {
    renderApp('/content/admin');
    expect(await screen.findByRole('heading', { name: 'Administración' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
    expect(await screen.findByText('Ingrese su email')).toBeTruthy();
    expect(screen.getByText('Ingrese su contraseña')).toBeTruthy();
    cleanup();
    renderApp('/content/admin', { storage: { adminId: 'a1' } });
    expect(await screen.findByRole('heading', { name: 'Panel de administración' })).toBeTruthy();
  });

  it('an unknown route shows the not-found page in the site frame, with a link home', async () => {
    const app = renderApp('/does-not-exist');
    expect(await screen.findByRole('heading', { level: 1, name: '404 Not Found' })).toBeTruthy();
    expect(screen.getByText('Unexpected Application Error!')).toBeTruthy();
    // The frame: its navigation is there.
    expect(screen.getAllByRole('link', { name: 'Participants' }).length).toBeGreaterThan(0);
    fireEvent.click(screen.getByRole('link', { name: 'Go to the home page' }));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/'));
  });

  // A path under /content that is not a page: the server answers it 404 (APP_PAGE_PATHS).
  it('shows the not-found page on an unknown /content path', async () => {
    renderApp('/content/no-such-page');
    expect(await screen.findByRole('heading', { level: 1, name: '404 Not Found' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe('/');
  });
});

describe('free points page', () => {
  it('close button while the countdown rests at 30; the banner once it runs', async () => {
    renderApp('/content/check', { storage: member });
    await screen.findByRole('heading', { name: 'Free Points' });
    expect(screen.getByText('00:30')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Close and go home' })).toBeTruthy();
    expect(document.querySelector('[data-ad-slot="check"]')).toBeNull();
    await waitFor(() => expect(screen.getByText('00:29')).toBeTruthy(), { timeout: 2500 });
    expect(screen.queryByRole('link', { name: 'Close and go home' })).toBeNull();
    expect(document.querySelector('[data-ad-slot="check"] iframe')).toBeTruthy();
    expect(screen.getByText('Every 20 points you can request a new pass.')).toBeTruthy();
  });

  it('guests are sent to join, which says why; the countdown does not start', async () => {
    const app = renderApp('/content/check');
    await screen.findByRole('heading', { name: 'Join Freedom Pass' });
    expect(app.router.state.location.pathname).toBe('/content/join');
    expect(screen.getByRole('status').textContent).toBe(JOIN_REASONS['free-points']);
    expect(app.api.adViewTicket).not.toHaveBeenCalled();
  });

  it('a member out of points reads why and what to do', async () => {
    renderApp('/content/check', { storage: member, setup: (h) => h.api.verifyAccess.mockResolvedValue({ ...sampleUser, chatCount: 0 }) });
    const line = await screen.findByText(/You have no points left/);
    expect(line.textContent).toBe(`${OUT_OF_POINTS} Buy Points`);
    expect(within(line).getByRole('link', { name: 'Buy Points' }).getAttribute('href')).toBe('/content/points');
  });
});

describe('guards say why', () => {
  it.each([
    ['/content/post', 'post'],
    ['/content/points', 'points'],
    ['/content/certificate', 'certificate'],
  ] as const)('%s sends a guest to join with a line', async (path, reason) => {
    const app = renderApp(path);
    await screen.findByRole('heading', { name: 'Join Freedom Pass' });
    expect(app.router.state.location.pathname).toBe('/content/join');
    expect(screen.getByRole('status').textContent).toBe(JOIN_REASONS[reason]);
  });

  it('join opened on its own has no such line', async () => {
    renderApp('/content/join');
    await screen.findByRole('heading', { name: 'Join Freedom Pass' });
    expect(screen.queryByRole('status')).toBeNull();
  });
});

describe('forms', () => {
  it('join validates on submit, re-validates on change, then registers', async () => {
    const app = renderApp('/content/join');
    const submit = await screen.findByRole('button', { name: 'Join' });
    const email = screen.getByLabelText('Email');
    fireEvent.input(email, { target: { value: 'ab' } });
    // Nothing before the first submit.
    expect(screen.queryByText('Please enter a valid email')).toBeNull();
    fireEvent.input(email, { target: { value: '' } });
    fireEvent.click(submit);
    expect(await screen.findByText('Enter an email')).toBeTruthy();
    expect(screen.getByText('Please enter your password')).toBeTruthy();
    fireEvent.input(email, { target: { value: 'ab' } });
    expect(await screen.findByText('Please enter a valid email')).toBeTruthy();
    fireEvent.input(email, { target: { value: 'ann@example.com' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'pass' } });
    fireEvent.click(submit);
    await waitFor(() => expect(app.api.registerUser).toHaveBeenCalledWith({ email: 'ann@example.com', password: 'pass' }));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/content/check'));
  });

  it('a registration error from the server shows in red above the form', async () => {
    renderApp('/content/join', {
      setup: (h) => h.api.registerUser.mockRejectedValue(new HttpError(401, { error: 'Wrong password' })),
    });
    fireEvent.input(await screen.findByLabelText('Email'), { target: { value: 'ann@example.com' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByRole('button', { name: 'Join' }));
    const alert = await screen.findByText('Wrong password');
    expect(alert.className).toBe('form-error');
  });

  it('post form: the email must match the registered one and an image is required', async () => {
    renderApp('/content/post', { storage: member });
    const submit = await screen.findByRole('button', { name: 'Get Freedom Pass!' });
    await waitFor(() => expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe(sampleUser.email));
    fireEvent.input(screen.getByLabelText('Email'), { target: { value: 'other@example.com' } });
    fireEvent.click(submit);
    expect(await screen.findByText('Your email must match the one registered')).toBeTruthy();
    expect(screen.getByText('Please enter your full name')).toBeTruthy();
    expect(screen.getByText('Please enter your image')).toBeTruthy();
  });

  it('post form: Back from the amount step opens it as it was sent', async () => {
    const app = renderApp('/content/post', { storage: member });
    const submit = await screen.findByRole('button', { name: 'Get Freedom Pass!' }, { timeout: 5000 });
    await waitFor(() => expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe(sampleUser.email));
    fireEvent.input(screen.getByLabelText('Full name'), { target: { value: 'Ann Back' } });
    fireEvent.input(screen.getByLabelText('Personal link'), { target: { value: 'https://example.com/ann' } });
    fireEvent.input(screen.getByRole('textbox', { name: 'Message' }), { target: { value: 'Hello again' } });
    fireEvent.change(screen.getByLabelText('Image'), { target: { files: [new File(['x'], 'me.png', { type: 'image/png' })] } });
    fireEvent.click(submit);
    await screen.findByRole('heading', { name: 'How many passes?' }, { timeout: 5000 });
    await act(() => app.router.navigate(-1));
    await screen.findByRole('button', { name: 'Get Freedom Pass!' }, { timeout: 5000 });
    expect((screen.getByLabelText('Full name') as HTMLInputElement).value).toBe('Ann Back');
    expect((screen.getByLabelText('Personal link') as HTMLInputElement).value).toBe('https://example.com/ann');
    expect((screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement).value).toBe('Hello again');
  }, 20_000);

  it('amount: bounds from available and points, then the claim', async () => {
    const state: PostFormState = {
      fields: { fullname: 'Ann', country: 'Spain', email: sampleUser.email, link: 'https://example.com', message: 'Hello' },
      image: new File(['x'], 'me.png', { type: 'image/png' }),
    };
    const app = renderApp({ pathname: '/content/amount', state }, { storage: member });
    await screen.findByRole('heading', { name: 'How many passes?' });
    await waitFor(() => expect(screen.getByText('Between 1 and 1')).toBeTruthy());
    const input = screen.getByLabelText('Passes');
    fireEvent.input(input, { target: { value: '2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('You can get at most 1 passes')).toBeTruthy();
    fireEvent.input(input, { target: { value: '1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(app.api.registerSpecialUser).toHaveBeenCalled());
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/'));
  });

  it('an image the server refuses (a renamed PDF) is shown beside the image field of the post form', async () => {
    const fields = { fullname: 'Ann', country: 'Spain', email: sampleUser.email, link: 'https://example.com', message: 'Hello' };
    const state: PostFormState = { fields, image: new File(['%PDF-1.7'], 'me.png', { type: 'image/png' }) };
    const refused = 'Please make sure you select an image.';
    const app = renderApp({ pathname: '/content/amount', state }, {
      storage: member,
      setup: (h) => h.api.registerSpecialUser.mockRejectedValue(new HttpError(400, { error: refused, fields: { image: refused } })),
    });
    await screen.findByRole('heading', { name: 'How many passes?' });
    await waitFor(() => expect(screen.getByText('Between 1 and 1')).toBeTruthy());
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/content/post'));
    const image = await screen.findByLabelText('Image');
    const field = image.closest('.field')!;
    await waitFor(() => expect(within(field as HTMLElement).getByRole('alert').textContent).toBe(refused));
    expect(image.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(image));
    expect(screen.getByText(POST_FORM_RETURNED)).toBeTruthy();
    // What was typed is kept.
    expect((screen.getByLabelText('Full name') as HTMLInputElement).value).toBe('Ann');
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('Hello');
    expect(screen.queryByText(refused, { selector: '.form-error' })).toBeNull();
  });
});

describe('participants and points', () => {
  it('registry: own row highlighted, special icon, masked member as sent', async () => {
    renderApp('/content/participants', {
      storage: member,
      setup: (h) =>
        h.api.registry.mockResolvedValue({
          total: 2,
          page: 1,
          pageSize: 50,
          items: [
            { userId: 'u2', createdAt: '2026-02-01T00:00:00Z', member: 'joh***@mail.com', passes: 1, points: 3, priority: '' },
            { userId: 'u1', createdAt: '2026-01-05T00:00:00Z', member: 'Ann', passes: 5, points: 1234, priority: 'specialUser' },
          ],
        }),
    });
    const own = await screen.findByText('Ann');
    const row = own.closest('tr')!;
    expect(row.getAttribute('aria-current')).toBe('true');
    expect(within(row).getByRole('img', { name: 'Special member' })).toBeTruthy();
    expect(within(row).getByText('05/01/2026')).toBeTruthy();
    expect(within(row).getByText('1,234')).toBeTruthy();
    const rows = screen.getAllByRole('row');
    expect(rows[1]).toBe(row);
    expect(screen.getByText('joh***@mail.com')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Logout' })).toBeTruthy();
  });

  it('registry: "Become the first one!" when empty; guests get the join button', async () => {
    renderApp('/content/registered');
    expect(await screen.findByText('Become the first one!')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Join the project' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Logout' })).toBeNull();
  });

  it('registry: a filter that finds nobody says so and what to try, not "Become the first one!"', async () => {
    renderApp('/content/participants', {
      setup: (h) => h.api.registry.mockImplementation(async (query: string) => ({ total: query ? 0 : 1, page: 1, pageSize: 50, items: query ? [] : [
        { userId: 'u1', createdAt: '2026-01-05T00:00:00Z', member: 'Ann', passes: 5, points: 1, priority: '' },
      ] })),
    });
    await screen.findByText('Ann');
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter participants by email, name or date' }), { target: { value: 'zz' } });
    expect(await screen.findByText(/^No member matches “zz”\. Try part of a name, of a date/)).toBeTruthy();
    expect(screen.queryByText('Become the first one!')).toBeNull();
  });

  it('nine purchase cards; test-mode checkout completes the purchase', async () => {
    const app = renderApp('/content/points', { storage: member });
    const buttons = await screen.findAllByRole('button', { name: /^Buy .* points for/ });
    expect(buttons).toHaveLength(9);
    expect(screen.getByText('100 Freedom Pass points, exchangable for 5 passes or 100 messages in the global chat')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Buy 1,000 points for $10' }));
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).getByRole('button', { name: 'Close checkout' })).toBeTruthy();
    // The payment options load after the dialog opens ("Loading payment options…" first).
    const testMode = await within(dialog).findByRole('button', { name: /test mode/ });
    await act(async () => {
      fireEvent.click(testMode);
    });
    await waitFor(() => expect(app.api.createOrder).toHaveBeenCalledWith(10));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/content/registered'));
    expect(app.toasts).toContainEqual({ kind: 'success', message: 'Points successfully acquired!' });
  });
});
