// Build-time entry (`vite build --ssr`, run by web/scripts/prerender.ts): the guest's view of the
// public shells as HTML, from the same routes and reducers as the browser bundle.
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { Provider } from 'react-redux';
import { configureStore } from '@reduxjs/toolkit';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom';
import { routes } from './router';
import { guestState, rootReducer } from './store';

export { PRERENDERED_PAGES, PRERENDERED_PATH_ATTRIBUTE } from './prerendered-pages';

/**
 * `path` as HTML: `body`, the markup of #root, as the first client render (hydration) produces it;
 * `head`, the preloads React writes first (its images: the logo, the carousel's first certificate
 * with fetchpriority high), which belong in <head> where the browser finds them soonest.
 */
export async function renderPage(path: string): Promise<{ head: string; body: string }> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(`http://prerender.invalid${path}`));
  if (context instanceof Response) throw new Error(`${path} answered ${context.status} instead of a page`);
  const router = createStaticRouter(handler.dataRoutes, context);
  // No sagas: nothing is fetched at build time, live figures come after hydration.
  const store = configureStore({ reducer: rootReducer, preloadedState: guestState() });
  const html = renderToString(
    <StrictMode>
      <Provider store={store}>
        {/* hydrate={false}: no inline hydration-data script (the CSP refuses inline scripts; there are no loaders). */}
        <StaticRouterProvider router={router} context={context} hydrate={false} />
      </Provider>
    </StrictMode>,
  );
  const head = /^(?:<link [^>]*>)*/.exec(html)?.[0] ?? '';
  return { head, body: html.slice(head.length) };
}
