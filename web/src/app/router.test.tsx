import { describe, expect, it } from 'vitest';
import { matchRoutes } from 'react-router-dom';
import { APP_PAGE_PATHS, isAppPagePath } from '@pass/events/kernel';
import { routes } from './router';

const UNKNOWN = ['/nope', '/content/no-such-page', '/admin', '/content/admin/nope', '/index.htm'];

describe('the paths the server answers 200 (APP_PAGE_PATHS) are the paths the router renders', () => {
  // The catch-all (`*`) renders the not-found page inside the frame for any other path.
  const leaf = (path: string) => matchRoutes(routes, path)?.at(-1)?.route.path;
  it('matches every kernel page path with a page of its own, and any other only with the not-found page', () => {
    for (const path of APP_PAGE_PATHS) {
      expect(matchRoutes(routes, path), path).not.toBeNull();
      expect(leaf(path), path).not.toBe('*');
    }
    for (const path of UNKNOWN) {
      expect(leaf(path), path).toBe('*');
      expect(isAppPagePath(path), path).toBe(false);
    }
  });
});
