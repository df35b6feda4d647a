import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, matchRoutes, RouterProvider } from 'react-router-dom';
import { APP_PAGE_PATHS, isAppPagePath } from '@pass/events/kernel';
import { makeHarness } from '../testing/fakeServices';
import { routes } from './router';
import { createAppStore, type AppStore } from './store';

let stores: AppStore[] = [];

beforeAll(() => {
  window.scrollTo = () => {};
  Element.prototype.scrollIntoView = () => {};
});

afterEach(() => {
  cleanup();
  for (const s of stores) s.rootTask.cancel();
  stores = [];
});

const UNKNOWN = ['/nope', '/content/no-such-page', '/admin', '/content/admin/nope', '/index.htm'];

describe('the paths the server answers 200 (APP_PAGE_PATHS) are the paths the router renders', () => {
  it('matches every kernel page path, and no other', () => {
    for (const path of APP_PAGE_PATHS) expect(matchRoutes(routes, path), path).not.toBeNull();
    for (const path of UNKNOWN) {
      expect(matchRoutes(routes, path), path).toBeNull();
      expect(isAppPagePath(path), path).toBe(false);
    }
  });

  it("shows the router's 404 screen (spec §2) on a path the server answers 404", async () => {
    const h = makeHarness({ acceptedCookie: 'true' });
    const store = createAppStore(h.services);
    stores.push(store);
    render(
      <Provider store={store}>
        <RouterProvider router={createMemoryRouter(routes, { initialEntries: ['/content/no-such-page'] })} />
      </Provider>,
    );
    expect(await screen.findByText('Unexpected Application Error!')).toBeTruthy();
    expect(screen.getByText('404 Not Found')).toBeTruthy();
  });
});
