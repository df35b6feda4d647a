// First: no eval probe under the Content-Security-Policy (see the module). zod builds its
// parsers when a schema is created, so this must run before any module that creates one.
import '@pass/events/zod-jitless';
import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { createAppRouter, routes } from './app/router';
import { createAppStore, guestState } from './app/store';
import { browserServices } from './app/browserServices';
import { holdsMarkupOf, resolveLazyRoutes } from './app/hydration';
import { prefetchOnIntent } from './app/prefetchOnIntent';
import './styles.css';

async function start(container: HTMLElement) {
  const pathname = window.location.pathname;
  // The build-time HTML of / , /content/participants and /content/about (app/prerender.tsx) is
  // hydrated; any other path starts from an empty root (the server may have sent /'s markup).
  const hydrating = holdsMarkupOf(container, pathname);
  if (hydrating) await resolveLazyRoutes(routes, pathname);

  const router = createAppRouter();
  const store = createAppStore(browserServices((to, options) => router.navigate(to, options)));
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
    // the main thread for the whole page (one long task of ~1 s on a throttled phone): the page
    // is already painted, so nothing is waiting for it but input, which React then hydrates first.
    startTransition(() => {
      hydrateRoot(container, app);
    });
  } else {
    container.replaceChildren();
    createRoot(container).render(app);
  }
  prefetchOnIntent(routes);
}

const container = document.getElementById('root');
if (!container) throw new Error('#root is missing from index.html');
void start(container);
