import type { RequiredSetting } from '../config/settings';

/** A store several processes can share: not the embedded PGlite (one process per folder). */
const sharedStore: RequiredSetting = {
  variable: 'EVENT_STORE_URL',
  key: 'eventStoreUrl',
  check: (url) => (String(url).startsWith('pglite:') ? 'expected postgres://… or esdb://… (PGlite cannot be shared between processes)' : undefined),
};
const redis: RequiredSetting = { variable: 'REDIS_URL', key: 'redisUrl' };
// query-api verifies the cookies command-api signs: both need the same secret.
const secret: RequiredSetting = { variable: 'SESSION_SECRET', key: 'sessionSecret' };

export const commandApiRequires: RequiredSetting[] = [sharedStore, redis, secret];
export const projectorRequires: RequiredSetting[] = [sharedStore, redis];
export const queryApiRequires: RequiredSetting[] = [sharedStore, redis, secret, { variable: 'COMMAND_API_URL', key: 'commandApiUrl' }];
export const proxyRequires: RequiredSetting[] = [
  { variable: 'COMMAND_API_URL', key: 'commandApiUrl' },
  { variable: 'QUERY_API_URLS', key: 'queryApiUrls' },
];
