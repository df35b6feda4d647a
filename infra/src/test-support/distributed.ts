import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropPostgresSchema, dropRedisPrefix, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';

/** Polls until `read` returns something `accept` likes, or the time is up (then the last reading). */
export async function pollUntil<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * One suite's own distributed deployment settings: a fresh PostgreSQL schema `<name>_<run>`, Redis
 * key prefix and DATA_DIR, and the environment every service process reads them from.
 * `cleanUp` removes all three once the processes have stopped.
 */
export function distributedDeployment(name: string) {
  const run = randomUUID().replaceAll('-', '').slice(0, 12);
  const schema = `${name}_${run}`;
  const prefix = `test:${name}:${run}:`;
  const dir = mkdtempSync(join(tmpdir(), `pass-${name}-`));
  const storeUrl = new URL(testPostgresUrl());
  storeUrl.searchParams.set('schema', schema);
  const env = {
    EVENT_STORE_URL: storeUrl.toString(),
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: prefix,
    SESSION_SECRET: `test-secret-${randomUUID()}`,
    DATA_DIR: dir,
    UPLOADS_DIR: join(dir, 'uploads'),
    WEB_DIST_DIR: join(dir, 'no-web-build'),
  };
  const cleanUp = async () => {
    await dropRedisPrefix(testRedisUrl(), prefix);
    await dropPostgresSchema(testPostgresUrl(), schema);
    rmSync(dir, { recursive: true, force: true });
  };
  return { schema, prefix, dir, env, cleanUp };
}
