import { matchRoutes, type RouteObject } from 'react-router-dom';

/**
 * Starts loading a lazy route's code as soon as a link to it is pointed at or focused, so the
 * click usually finds it loaded. import() caches the module: the router's own load later reuses it.
 */
export function prefetchOnIntent(routes: RouteObject[], target: Document = document): void {
  const started = new Set<string>();
  const onIntent = (event: Event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!(link instanceof HTMLAnchorElement) || link.origin !== window.location.origin) return;
    const { pathname } = link;
    if (started.has(pathname)) return;
    started.add(pathname);
    for (const { route } of matchRoutes(routes, pathname) ?? []) {
      // A failed load is tried again by the router on click, and by the next intent.
      if (typeof route.lazy === 'function') void route.lazy().catch(() => started.delete(pathname));
    }
  };
  target.addEventListener('pointerover', onIntent, { passive: true });
  target.addEventListener('focusin', onIntent);
}
