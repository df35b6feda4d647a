import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { nextTask } from '../lib/next-task';
import { browserServices } from './browser-services';
import { holdsMarkupOf, resolveLazyRoutes } from './hydration';
import { prefetchOnIntent } from './prefetch-on-intent';
import { createAppRouter, routes } from './router';
import { createAppStore, guestState } from './store';

/** Hydrates (or renders) the app into `container`, a step per task. */
export async function start(container: HTMLElement): Promise<void> {
  const pathname = window.location.pathname;
  // The build-time HTML of / , /content/participants and /content/about (app/prerender.tsx) is
  // hydrated; any other path starts from an empty root (the server may have sent /'s markup).
  const hydrating = holdsMarkupOf(container, pathname);
  if (hydrating) await resolveLazyRoutes(routes, pathname);

  // Each step in a task of its own: the page is painted from its HTML already, and one task for
  // the whole start would hold a phone's main thread as one long task.
  await nextTask();
  const router = createAppRouter();
  await nextTask();
  const store = createAppStore(browserServices((to, options) => router.navigate(to, options)));
  await nextTask();
  const app = (
    <StrictMode>
      {/* serverState: hydration renders the guest state the HTML was made from, then the store's. */}
      <Provider store={store} serverState={guestState()}>
        <RouterProvider router={router} />
      </Provider>
    </StrictMode>
  );
  if (hydrating) {
    // As a transition, hydration yields to the browser every few milliseconds instead of holding
    // the main thread for the whole page: the page is already painted, so nothing is waiting for
    // it but input, which React then hydrates first.
    startTransition(() => {
      hydrateRoot(container, app);
    });
  } else {
    container.replaceChildren();
    createRoot(container).render(app);
  }
  prefetchOnIntent(routes);
}
