import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { openPgliteEventStore } from '@pass/events/store';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { projectInto, toPositioned } from './projections/apply';
import { createRedisReadModels } from './read-models/redis';
import { keyspacePrefix } from './read-models/redis/keys';
import { deleteKeysUnder } from './read-models/redis-admin';
import { appendEvents } from './test-support/append';
import { generateEvents } from './test-support/generate-events';

const reachable = await requireService('projector: SIGKILL mid catch-up (Redis)', testRedisUrl(), 6379);
const script = resolve(import.meta.dirname, 'test-support/crash-projector.ts');
const USERS = 2_000;

function startProjector(dataDir: string, root: string): { child: ChildProcess; caughtUp: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir, root], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const caughtUp = new Promise<void>((done, fail) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('caught-up') && done());
    child.once('exit', (code, signal) => fail(new Error(`projector exited (${code ?? signal}) before catching up: ${stderr}`)));
  });
  caughtUp.catch(() => undefined);
  return { child, caughtUp };
}

describe.skipIf(!reachable)('a projector killed in the middle of a large catch-up', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pass-crash-'));
  const root = `test:rm:${randomUUID()}`;
  const cleanRoot = `test:rm:${randomUUID()}`;
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });

  afterAll(async () => {
    await deleteKeysUnder(redis, root);
    await deleteKeysUnder(redis, cleanRoot);
    redis.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('restarts from its checkpoint and ends with read models equal to a clean rebuild', { timeout: 240_000 }, async () => {
    const seed = await openPgliteEventStore({ dataDir });
    const total = await appendEvents(seed, generateEvents({ users: USERS, seed: 21 }));
    await seed.close();

    // First run: killed with SIGKILL once a part of the users has been projected.
    const first = startProjector(dataDir, root);
    const uid = `${keyspacePrefix(root, 'ks0')}uid`;
    await expect.poll(async () => redis.hlen(uid), { timeout: 120_000, interval: 20 }).toBeGreaterThan(USERS / 4);
    first.child.kill('SIGKILL');
    await new Promise((done) => first.child.once('exit', done));
    const projectedAtKill = await redis.hlen(uid);
    expect(projectedAtKill).toBeLessThan(USERS); // really in the middle

    // Second run: resumes from the stored checkpoint and catches up.
    const second = startProjector(dataDir, root);
    await second.caughtUp;
    second.child.kill('SIGTERM');
    await new Promise((done) => second.child.once('exit', done));

    // A clean rebuild of the same store, straight through the projections.
    const store = await openPgliteEventStore({ dataDir });
    const all = await store.readAll({ maxCount: total + 10 });
    expect(all).toHaveLength(total);
    const clean = createRedisReadModels({ redis, root: cleanRoot }).keyspace('ks0');
    for (let i = 0; i < all.length; i += 500) await projectInto(clean, toPositioned(all.slice(i, i + 500)));
    await store.close();

    const recovered = await createRedisReadModels({ redis, root }).keyspace('ks0').dump();
    const rebuilt = await clean.dump();
    expect(recovered.rows).toHaveLength(USERS);
    expect(recovered).toEqual(rebuilt);
  });
});
