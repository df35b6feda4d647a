import { PRODUCT_NAME, contentPath, type ContentPage } from '@pass/events/kernel';

interface PrerenderedPage {
  path: string;
  file: string;
  title: string;
}

/** A page under /content, rendered into `pages<path>.html`, where the server looks for it. */
function contentShell(page: ContentPage, title: string): PrerenderedPage {
  const path = contentPath(page);
  return { path, file: `pages${path}.html`, title: `${title} · ${PRODUCT_NAME}` };
}

/**
 * The public shells rendered to HTML at build time (web/scripts/prerender.ts), each into its own
 * file of web/dist: `/` into index.html, which the server sends for every page path, the others
 * under pages/ (the server sends `pages<path>.html` for their path when it exists). The HTML names
 * its path on the root element (`data-page`), so the client hydrates only the markup of its URL.
 */
export const PRERENDERED_PAGES: readonly PrerenderedPage[] = [
  { path: '/', file: 'index.html', title: PRODUCT_NAME },
  contentShell('participants', 'Participants'),
  contentShell('about', 'About'),
];

/** The attribute on #root naming the path its build-time markup was rendered for. */
export const PRERENDERED_PATH_ATTRIBUTE = 'data-page';
