import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { positionToString } from '@pass/events';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createRemoteReplayControl, deleteKeysUnder, keyspacePrefix, startReplayWorker } from '@pass/projector';
import { appendEvents, BOB, generateEvents, recordedDay } from '@pass/projector/test-support';
import { ADMIN, startReadSide, type Client, type ReadSide } from '../../test-support/read-side';

const READS = ['main-data', 'countries', 'ranking?page=1&pageSize=100', 'ranking?q=peru', 'registry?page=2&pageSize=20', 'chat-messages?limit=50'] as const;
const reachable = await requireService('query-api: replays in Redis', testRedisUrl(), 6379);

describe.skipIf(!reachable)('the admin replays in Redis, run by the projector process (distributed)', () => {
  const root = `test:replay:${randomUUID()}`;
  const bull = `test:bull:${randomUUID()}`;
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  let side: ReadSide;
  let admin: Client;

  beforeAll(async () => {
    side = await startReadSide({
      replays: async (store) => {
        const options = {
          redisUrl: testRedisUrl(),
          prefix: bull,
          readModelsRedis: redis,
          root: `${root}:rm`,
          stateRedis: redis,
          stateRoot: `${root}:states`,
          eventStore: store,
          logger: pino({ level: 'silent' }),
          erasureSweepMs: 50,
        };
        // The worker stands for the projector process; query-api only queues and reads.
        const worker = await startReplayWorker(options);
        const control = createRemoteReplayControl(options);
        return { ...control, close: async () => void (await Promise.all([control.close(), worker.close()])) };
      },
    });
    admin = side.client();
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
  });
  afterAll(async () => {
    await side?.close();
    await deleteKeysUnder(redis, root);
    await deleteKeysUnder(redis, bull);
    redis.disconnect();
  });

  const keysOf = async (id: string) => redis.keys(`${keyspacePrefix(`${root}:rm`, id)}*`);

  it('answer at each earlier moment what the public reads answered then; the keys expire, and go on delete', { timeout: 180_000 }, async () => {
    const parts = [recordedDay.slice(0, 12), recordedDay.slice(12, 26), recordedDay.slice(26), [...generateEvents({ users: 60, seed: 3 })]];
    const moments: Array<{ position: string; bodies: unknown[] }> = [];
    for (const part of parts) {
      await appendEvents(side.store, part);
      await side.projector.settled();
      const bodies = [];
      for (const read of READS) bodies.push((await admin.request('GET', `/api/${read}`)).body);
      moments.push({ position: positionToString(await side.store.headPosition()), bodies });
    }
    for (const moment of moments) {
      const started = await admin.request('POST', '/api/admin/replays', { position: moment.position });
      expect(started.status).toBe(202);
      const id = started.body.id as string;
      await expect.poll(async () => (await admin.request('GET', `/api/admin/replays/${id}`)).body.status, { timeout: 30_000 }).toBe('ready');
      for (const [i, read] of READS.entries()) {
        expect((await admin.request('GET', `/api/admin/replays/${id}/${read}`)).body, `${moment.position} ${read}`).toEqual(moment.bodies[i]);
      }
      const keys = await keysOf(id);
      expect(keys.length).toBeGreaterThan(3);
      for (const key of keys) expect(await redis.pttl(key), key).toBeGreaterThan(0);
      expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(204);
      expect(await keysOf(id)).toEqual([]);
      expect((await admin.request('GET', `/api/admin/replays/${id}`)).status).toBe(404);
    }
  });

  it('take a member erased once the replay was made out of it, even unread', { timeout: 60_000 }, async () => {
    const started = await admin.request('POST', '/api/admin/replays', { position: positionToString(await side.store.headPosition()) });
    const id = started.body.id as string;
    await expect.poll(async () => (await admin.request('GET', `/api/admin/replays/${id}`)).body.status, { timeout: 30_000 }).toBe('ready');
    const rows = async () => JSON.stringify(await redis.hgetall(`${keyspacePrefix(`${root}:rm`, id)}rows`));
    expect(await rows()).toContain('bob@mail.org');
    await appendEvents(side.store, [{ type: 'MemberErased', data: { userId: BOB, requestedBy: 'admin', adminId: 'admin-1', erasedAt: new Date().toISOString() } }]);
    // The projector process's sweep takes him out without anyone reading the replay, and its
    // writes leave every key expiring with the replay.
    const state = async () => {
      const ttls = await Promise.all((await keysOf(id)).map((key) => redis.pttl(key)));
      return { bob: (await rows()).includes('bob@mail.org'), keysNotExpiring: ttls.filter((ttl) => ttl <= 0).length };
    };
    await expect.poll(state, { timeout: 10_000 }).toEqual({ bob: false, keysNotExpiring: 0 });
    const registry = (await admin.request('GET', `/api/admin/replays/${id}/registry?pageSize=100`)).body as { items: Array<{ userId: string }> };
    expect(registry.items.map((row) => row.userId)).not.toContain(BOB);
    expect(JSON.stringify((await admin.request('GET', `/api/admin/replays/${id}/chat-messages?limit=50`)).body)).not.toContain(BOB);
    expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(204);
  });
});
