import { afterEach, beforeAll } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { makeHarness, type Harness } from './fake-services';
import { routes } from '../app/router';
import { createAppStore, type AppStore } from '../app/store';

/**
 * The whole app (real router, store and sagas) on fake services, for tests that walk its pages.
 * Call `useAppHarness()` once at a test file's top level: it stubs what jsdom lacks and stops
 * each test's sagas after it.
 */
let stores: AppStore[] = [];

export function useAppHarness(): void {
  beforeAll(() => {
    // jsdom lacks these browser APIs the layout calls.
    window.scrollTo = () => {};
    Element.prototype.scrollIntoView = () => {};
  });
  afterEach(() => {
    cleanup();
    for (const store of stores) store.rootTask.cancel();
    stores = [];
  });
}

export type Entry = string | { pathname: string; state: unknown };

export function renderApp(entry: Entry, options: { storage?: Record<string, string>; setup?: (h: Harness) => void } = {}) {
  const h = makeHarness({ acceptedCookie: 'true', ...options.storage });
  options.setup?.(h);
  const router = createMemoryRouter(routes, { initialEntries: [entry] });
  h.services.navigate = (to, opts) => {
    h.navigate(to, opts);
    void router.navigate(to, opts);
  };
  const store = createAppStore(h.services);
  stores.push(store);
  render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
  return { ...h, store, router };
}
