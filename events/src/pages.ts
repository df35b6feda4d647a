/**
 * The web app's pages (web/src/app/router.tsx builds its routes from these; web/src/app/router.test.tsx
 * holds the two together). The server answers each with the app and 200, any other page path with
 * the app and 404, whose router then shows its default error screen ("404 Not Found", docs/product.md §2)
 * under the right status.
 */

/** The pages under /content (the router's `content` children), relative as the router writes them. */
export const CONTENT_PAGES = [
  'check',
  'about',
  'post',
  'amount',
  'join',
  'participants',
  'registered',
  'points',
  'certificate',
  'admin-certificate',
  'admin',
  'admin/dashboard',
  'my-data',
  'reset-password',
  'progress',
] as const;

export type ContentPage = (typeof CONTENT_PAGES)[number];

/** The path of a page under /content: the one way the web writes a page's path, so a typo does not compile. */
export function contentPath<P extends ContentPage>(page: P): `/content/${P}` {
  return `/content/${page}`;
}

/**
 * Every path the router renders: `/`, `/content` (its layout alone, which the router matches) and
 * `/content/<page>`.
 */
export const APP_PAGE_PATHS: readonly string[] = ['/', '/content', ...CONTENT_PAGES.map((page) => contentPath(page))];

/** The page a path names: one trailing slash dropped, as the router drops it. */
export function appPagePathOf(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

/** True for a page of the app (one trailing slash allowed, as the router allows it). */
export function isAppPagePath(pathname: string): boolean {
  return APP_PAGE_PATH_SET.has(appPagePathOf(pathname));
}

const APP_PAGE_PATH_SET = new Set(APP_PAGE_PATHS);
