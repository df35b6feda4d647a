/**
 * Which service answers a request on the one public origin (distributed mode). The Node proxy
 * uses this table; infra/deploy/Caddyfile encodes the same rules for real deployments.
 */
export type Upstream = 'command-api' | 'query-api';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * command-api routes answered to reads too: the session's own access check, the checkout's
 * settings, and the member's data export (read from their event stream, which command-api holds).
 */
const COMMAND_API_READS = ['/api/verify-access/', '/api/payments/', '/api/my-data'];

/** query-api routes that change something: a rebuild, the admin's replays (asked for and deleted there). */
const QUERY_API_WRITES = ['/api/admin/projections/rebuild', '/api/admin/replays'];

export function upstreamFor(method: string, path: string): Upstream {
  // Static uploads are written and served by command-api (its shared uploads folder).
  if (path === '/uploads' || path.startsWith('/uploads/')) return 'command-api';
  if (path === '/api' || path.startsWith('/api/')) {
    // The exceptions to "reads → query-api, writes → command-api":
    if (COMMAND_API_READS.some((prefix) => path.startsWith(prefix))) return 'command-api';
    if (QUERY_API_WRITES.some((written) => path === written || path.startsWith(`${written}/`))) return 'query-api';
    return READ_METHODS.has(method.toUpperCase()) ? 'query-api' : 'command-api';
  }
  // Socket.IO, pages and the web app's static files.
  return 'query-api';
}

/** Paths every backend serves for operators only; the public origin does not forward them. */
export const INTERNAL_PATHS = new Set(['/readyz', '/metrics']);
