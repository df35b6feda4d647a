import { describe, expect, it } from 'vitest';
import { matchRoutes } from 'react-router-dom';
import { APP_PAGE_PATHS, isAppPagePath } from '@pass/events/kernel';
import { routes } from './router';

const UNKNOWN = ['/nope', '/content/no-such-page', '/admin', '/content/admin/nope', '/index.htm'];

describe('the paths the server answers 200 (APP_PAGE_PATHS) are the paths the router renders', () => {
  it('matches every kernel page path, and no other', () => {
    for (const path of APP_PAGE_PATHS) expect(matchRoutes(routes, path), path).not.toBeNull();
    for (const path of UNKNOWN) {
      expect(matchRoutes(routes, path), path).toBeNull();
      expect(isAppPagePath(path), path).toBe(false);
    }
  });
});
