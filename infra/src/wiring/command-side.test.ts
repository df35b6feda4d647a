import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE, type EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { EncryptingEventStore, MemoryKeyStore } from '@pass/events/personal-data';
import { commandApiRedisKeys } from '@pass/command-api';
import { serveHarness, type Harness } from '@pass/command-api/test-support';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { parseSettings } from '../config/settings';
import { composeCommandApi } from './command-side';
import { Resources } from './lifecycle';

describe('standalone sessions survive a restart', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pass-sessions-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** command-api as the standalone process composes it on the data folder `dir` (no SESSION_SECRET), over HTTP. */
  async function standalone(store: EventStore): Promise<Harness> {
    const settings = parseSettings({ DATA_DIR: dir });
    const resources = new Resources();
    const { commandApi } = await composeCommandApi(settings, store, pino({ level: 'silent' }), resources);
    return serveHarness(commandApi, { store, uploadsDir: settings.uploadsDir, close: resources.close });
  }

  it('a member stays logged in across a restart of the process, and a logout stays a logout', async () => {
    // As every composition root opens it: behind the personal-data layer, whose key store holds the e-mail stream key.
    const store = new EncryptingEventStore(await openPgliteEventStore(), new MemoryKeyStore());
    try {
      // No session secret configured: the development secret is generated once per data folder.
      const first = await standalone(store);
      const b = first.browser();
      const { body: user } = await b.request('POST', '/api/register-user', { email: 'restart@example.com', password: 'pass1' });
      const loggedOut = first.browser();
      await loggedOut.request('POST', '/api/register-user', { email: 'restart@example.com', password: 'pass1' });
      const revokedCookie = loggedOut.cookies.get(USER_SESSION_COOKIE)!;
      await loggedOut.request('POST', '/api/logout');
      await first.close();

      const second = await standalone(store);
      try {
        const again = second.browser();
        again.cookies.set(USER_SESSION_COOKIE, b.cookies.get(USER_SESSION_COOKIE)!);
        expect((await again.request('GET', `/api/verify-access/${user.id}`)).status).toBe(200);
        const replay = second.browser();
        replay.cookies.set(USER_SESSION_COOKIE, revokedCookie);
        expect((await replay.request('GET', `/api/verify-access/${user.id}`)).status).toBe(401);
      } finally {
        await second.close();
      }
    } finally {
      await store.close();
    }
  });

});

const redisUp = await requireService('infra: command-side image jobs (Redis)', testRedisUrl(), 6379);

describe.skipIf(!redisUp)('distributed command-api and image jobs', () => {
  it('queues image jobs for the image-worker processes and runs no worker itself', async () => {
    const prefix = `test:command-side:${randomUUID().slice(0, 8)}:`;
    const settings = parseSettings({ REDIS_URL: testRedisUrl(), REDIS_PREFIX: prefix, SESSION_SECRET: 's'.repeat(40), DATA_DIR: await mkdtemp(join(tmpdir(), 'pass-cs-')) });
    const store = new EncryptingEventStore(await openPgliteEventStore(), new MemoryKeyStore());
    const resources = new Resources();
    const url = new URL(testRedisUrl());
    const queue = new Queue('image-processing', { connection: { host: url.hostname, port: Number(url.port || 6379) }, prefix: commandApiRedisKeys(prefix).imageJobs });
    try {
      await composeCommandApi(settings, store, pino({ level: 'silent' }), resources, undefined, 'image-worker');
      expect(await queue.getWorkersCount()).toBe(0);
    } finally {
      await resources.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await store.close();
      await rm(settings.dataDir, { recursive: true, force: true });
    }
  });
});
