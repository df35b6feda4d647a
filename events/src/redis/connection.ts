/**
 * A Redis URL as the connection options BullMQ takes (it wants options, not a URL): host, port,
 * credentials, database and TLS for `rediss:`. BullMQ's blocking connections must retry forever,
 * hence `maxRetriesPerRequest: null`.
 */
export function redisConnectionOptions(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 6379),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}
