import { matchRoutes, type RouteObject } from 'react-router-dom';
import { PRERENDERED_PATH_ATTRIBUTE } from './prerendered-pages';

/** True when #root holds build-time markup of this very URL (another path's is thrown away). */
export function holdsMarkupOf(container: HTMLElement, pathname: string): boolean {
  return container.firstElementChild !== null && container.getAttribute(PRERENDERED_PATH_ATTRIBUTE) === pathname;
}

/**
 * Loads the lazy routes `pathname` matches and puts them into the route objects, before the router
 * is created: it then starts initialised and its first render is the page, as in the HTML, not the
 * HydrateFallback a lazy route shows while it loads (which would not match).
 */
export async function resolveLazyRoutes(routes: RouteObject[], pathname: string): Promise<void> {
  const matches = matchRoutes(routes, pathname) ?? [];
  await Promise.all(
    matches.map(async ({ route }) => {
      if (typeof route.lazy !== 'function') return;
      const loaded = await route.lazy();
      Object.assign(route, loaded, { lazy: undefined });
    }),
  );
}
