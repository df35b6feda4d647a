import { describe, expect, it } from 'vitest';
import { upstreamFor } from './routes';

describe('which service answers a request on the public origin', () => {
  it.each([
    ['POST', '/api/register-user', 'command-api'],
    ['POST', '/api/free-point', 'command-api'],
    ['POST', '/api/chat-messages', 'command-api'],
    ['PUT', '/api/main-data', 'command-api'],
    ['DELETE', '/api/member-post/u1', 'command-api'],
    ['GET', '/api/verify-access/u1', 'command-api'],
    ['GET', '/api/my-data', 'command-api'],
    ['GET', '/uploads/abc.webp', 'command-api'],
    ['GET', '/api/payments/config', 'command-api'],
    ['POST', '/api/payments/orders/o1/capture', 'command-api'],
    ['POST', '/api/payments/webhooks/paypal', 'command-api'],
    ['GET', '/api/main-data', 'query-api'],
    ['GET', '/api/chat-messages', 'query-api'],
    ['HEAD', '/api/ranking', 'query-api'],
    ['POST', '/api/admin/projections/rebuild', 'query-api'],
    ['POST', '/api/admin/replays', 'query-api'],
    ['DELETE', '/api/admin/replays/rp0123456789abcdef', 'query-api'],
    ['GET', '/api/admin/replays/rp0123456789abcdef/diff/now', 'query-api'],
    ['DELETE', '/api/admin/members/u1', 'command-api'],
    ['POST', '/api/admin/replaysx', 'command-api'],
    ['GET', '/socket.io/', 'query-api'],
    ['POST', '/socket.io/', 'query-api'],
    ['GET', '/content/check', 'query-api'],
    ['GET', '/assets/index.js', 'query-api'],
    ['GET', '/apiary', 'query-api'],
  ] as const)('%s %s → %s', (method, path, expected) => {
    expect(upstreamFor(method, path)).toBe(expected);
  });
});
