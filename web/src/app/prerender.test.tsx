import { act, StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeHarness } from '../testing/fake-services';
import { holdsMarkupOf, resolveLazyRoutes } from './hydration';
import { PRERENDERED_PAGES, PRERENDERED_PATH_ATTRIBUTE, renderPage } from './prerender';
import { createAppRouter, routes } from './router';
import { createAppStore, guestState } from './store';

// act() outside @testing-library/react, which would otherwise say so.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  vi.restoreAllMocks();
});

describe('build-time HTML of the public shells', () => {
  for (const page of PRERENDERED_PAGES) {
    it(`${page.path}: hydrates what renderPage made, keeping its nodes, without a warning, while live data lands`, async () => {
      window.history.replaceState(null, '', page.path);
      const container = document.createElement('div');
      container.id = 'root';
      container.setAttribute(PRERENDERED_PATH_ATTRIBUTE, page.path);
      container.innerHTML = (await renderPage(page.path)).body;
      document.body.append(container);
      const first = container.firstElementChild;
      expect(holdsMarkupOf(container, page.path)).toBe(true);
      expect(holdsMarkupOf(container, '/content/join')).toBe(false);

      const consoleErrors = vi.spyOn(console, 'error').mockImplementation(() => {});
      const recoverable: unknown[] = [];
      await resolveLazyRoutes(routes, page.path);
      const router = createAppRouter();
      // A returning member with the cookie accepted: the store differs from the guest HTML at once,
      // and the fake API answers (main data, the member) while React hydrates.
      const h = makeHarness({ acceptedCookie: 'true', userId: 'u1' });
      const store = createAppStore(h.services);
      await act(async () => {
        const root = hydrateRoot(
          container,
          <StrictMode>
            <Provider store={store} serverState={guestState()}>
              <RouterProvider router={router} />
            </Provider>
          </StrictMode>,
          { onRecoverableError: (error) => recoverable.push(error) },
        );
        cleanups.push(() => {
          root.unmount();
          store.rootTask.cancel();
          container.remove();
        });
      });
      await act(() => new Promise((done) => setTimeout(done, 50)));

      expect(recoverable).toEqual([]);
      expect(consoleErrors).not.toHaveBeenCalled();
      expect(container.firstElementChild).toBe(first);
      // After hydration the store's own state shows: the cookie was accepted, so no notice.
      expect(container.querySelector('[aria-label="Cookie notice"]')).toBeNull();
    });
  }
});
