import { mkdirSync, appendFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { resolve } from 'node:path';

/**
 * Test helpers for suites that need a server. A suite that cannot reach its server records
 * itself here; `npm test` prints every recorded suite as a SKIPPED line in its summary, so a
 * missing service is never a silent pass.
 */

const resultsDir = resolve(process.env.TEST_RESULTS_DIR ?? '.test-results');

export function recordSkippedSuite(suite: string, reason: string): void {
  mkdirSync(resultsDir, { recursive: true });
  appendFileSync(resolve(resultsDir, 'skipped-suites.txt'), `${suite}\t${reason}\n`);
}

/** True when a TCP connection to host:port opens within the timeout. */
export function canConnect(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

export const testPostgresUrl = () => process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const testRedisUrl = () => process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function hostPort(url: string, defaultPort: number): [string, number] {
  const u = new URL(url);
  return [u.hostname || '127.0.0.1', Number(u.port || defaultPort)];
}

/**
 * Probes a service for a suite. Returns true when reachable; otherwise records the suite as
 * skipped with the reason and returns false (use with `describe.skipIf(!reachable)`).
 */
export async function requireService(suite: string, url: string | undefined, defaultPort: number): Promise<boolean> {
  if (!url) {
    recordSkippedSuite(suite, 'no server configured');
    return false;
  }
  const [host, port] = hostPort(url, defaultPort);
  if (await canConnect(host, port)) return true;
  recordSkippedSuite(suite, `cannot reach ${host}:${port}`);
  return false;
}

/** Drops a suite's own PostgreSQL schema (and everything in it) once the suite is done. */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Deletes a suite's own Redis keys (everything under `prefix`) once the suite is done. */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** A free TCP port on loopback, for a server a suite starts of its own. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
