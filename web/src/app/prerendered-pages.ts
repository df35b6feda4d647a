import { PRODUCT_NAME } from '@pass/events/kernel';

/**
 * The public shells rendered to HTML at build time (web/scripts/prerender.ts), each into its own
 * file of web/dist: `/` into index.html, which the server sends for every page path, the others
 * under pages/ (the server sends `pages<path>.html` for their path when it exists). The HTML names
 * its path on the root element (`data-page`), so the client hydrates only the markup of its URL.
 */
export const PRERENDERED_PAGES: readonly { path: string; file: string; title: string }[] = [
  { path: '/', file: 'index.html', title: PRODUCT_NAME },
  { path: '/content/participants', file: 'pages/content/participants.html', title: `Participants · ${PRODUCT_NAME}` },
  { path: '/content/about', file: 'pages/content/about.html', title: `About · ${PRODUCT_NAME}` },
];

/** The attribute on #root naming the path its build-time markup was rendered for. */
export const PRERENDERED_PATH_ATTRIBUTE = 'data-page';
