import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { routes } from './router';
import { createAppStore, type AppStore } from './store';
import { makeHarness, type Harness } from '../testing/fake-services';

let store: AppStore | undefined;

afterEach(() => {
  cleanup();
  store?.rootTask.cancel();
  vi.useRealTimers();
});

function renderHome(storage: Record<string, string>, setup?: (h: Harness) => void) {
  vi.useFakeTimers();
  window.scrollTo = () => {};
  const h = makeHarness(storage);
  setup?.(h);
  const router = createMemoryRouter(routes, { initialEntries: ['/'] });
  store = createAppStore(h.services);
  render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
  return h;
}

const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

describe('ads popup on screen', () => {
  it('appears 6 s after accepting the cookie, not before the 7 s ad-block check, counts down, and the X shows once the banners loaded', async () => {
    renderHome({});
    fireEvent.click(screen.getByRole('button', { name: 'Accept' }));
    await advance(6_999);
    expect(screen.queryByRole('dialog', { name: 'Ads keep this project alive' })).toBeNull();
    await advance(1);
    const dialog = screen.getByRole('dialog', { name: 'Ads keep this project alive' });
    expect(dialog.textContent).toContain('00:10');
    expect(screen.queryByRole('button', { name: 'Close ads' })).toBeNull();
    await advance(9_000);
    expect(dialog.textContent).toContain('00:01');
    fireEvent.click(screen.getByRole('button', { name: 'Close ads' }));
    await advance(0);
    expect(screen.queryByRole('dialog', { name: 'Ads keep this project alive' })).toBeNull();
  });

  it('shows the ad-block notice when no main banner loaded at 7 s, and no popup: the member stays', async () => {
    const h = renderHome({ acceptedCookie: 'true' }, (harness) => {
      harness.ads.main = { slots: 1, loaded: 0 };
      harness.ads.popup = { slots: 3, loaded: 0 };
    });
    await advance(6_999);
    expect(screen.queryByText(/using an ad blocker/)).toBeNull();
    await advance(1);
    expect(screen.getByRole('alert').textContent).toContain('using an ad blocker');
    await advance(310_000);
    expect(screen.queryByRole('dialog', { name: 'Ads keep this project alive' })).toBeNull();
    expect(h.toasts).not.toContainEqual({ kind: 'error', message: 'Network connection lost' });
    expect(h.redirectHome).not.toHaveBeenCalled();
  });
});
