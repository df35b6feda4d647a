import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE } from '@pass/events';
import { eventually, requireService, testRedisUrl } from '@pass/events/test-support';
import { FileSessionStore } from './file-session-store';
import { RedisSessionStore } from './redis-session-store';
import { createRedisSessionVerifier } from './redis-session-verifier';
import { LAST_SEEN_GRANULARITY_MS, MemorySessionStore, type SessionRecord, type SessionStore } from './session-store';
import { Sessions } from './sessions';

/** Every store keeps an index of each member's sessions: listing them and ending them all but one. */

const record = (id: string, subjectId: string, kind: SessionRecord['kind'] = 'user'): SessionRecord => ({
  id,
  kind,
  subjectId,
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
});

const redisUrl = testRedisUrl();
const redisUp = await requireService('command-api redis member sessions', redisUrl, 6379);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pass-member-sessions-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stores: [string, boolean, () => Promise<SessionStore>][] = [
  ['memory', true, async () => new MemorySessionStore()],
  ['file', true, () => FileSessionStore.open(join(dir, `${randomUUID()}.jsonl`))],
  ['redis', redisUp, async () => new RedisSessionStore(new Redis(redisUrl), `test:${randomUUID()}:sessions:`, true)],
];

describe.each(stores)('%s session store: a member\'s sessions', (_name, available, open) => {
  it.skipIf(!available)('lists them, ends all but the current one, then all', async () => {
    const store = await open();
    try {
      for (const id of ['a1', 'a2', 'a3']) await store.create(record(id, 'ana'));
      await store.create(record('b1', 'bob'));
      await store.create(record('x1', 'ana', 'admin'));
      expect((await store.listOf('user', 'ana')).map((r) => r.id).sort()).toEqual(['a1', 'a2', 'a3']);

      await store.revoke('a3');
      expect((await store.listOf('user', 'ana')).map((r) => r.id).sort()).toEqual(['a1', 'a2']);

      expect(await store.revokeAllOf('user', 'ana', 'a2')).toEqual(['a1']);
      expect(await store.get('a1')).toBeNull();
      expect(await store.get('a2')).toMatchObject({ subjectId: 'ana' });
      expect(await store.revokeAllOf('user', 'ana')).toEqual(['a2']);
      expect(await store.listOf('user', 'ana')).toEqual([]);
      // Another member and an admin account with the same id keep theirs.
      expect(await store.get('b1')).toMatchObject({ subjectId: 'bob' });
      expect(await store.get('x1')).toMatchObject({ kind: 'admin' });
    } finally {
      await store.close();
    }
  });

  it.skipIf(!available)('keeps a last-seen time without bringing back a revoked session', async () => {
    const store = await open();
    try {
      await store.create(record('s1', 'ana'));
      await store.touch('s1', '2026-01-01T10:00:00.000Z');
      expect(await store.get('s1')).toMatchObject({ lastSeenAt: '2026-01-01T10:00:00.000Z' });
      await store.revoke('s1');
      await store.touch('s1', '2026-01-01T10:05:00.000Z');
      expect(await store.get('s1')).toBeNull();
    } finally {
      await store.close();
    }
  });
});

describe('file session store', () => {
  it('rebuilds the index and last-seen times from its file after a restart', async () => {
    const file = join(dir, 'restart.jsonl');
    const first = await FileSessionStore.open(file);
    for (const id of ['a1', 'a2']) await first.create(record(id, 'ana'));
    await first.touch('a1', '2026-01-01T10:00:00.000Z');
    await first.close();
    const second = await FileSessionStore.open(file);
    expect((await second.listOf('user', 'ana')).map((r) => r.id).sort()).toEqual(['a1', 'a2']);
    expect(await second.get('a1')).toMatchObject({ lastSeenAt: '2026-01-01T10:00:00.000Z' });
    await second.revokeAllOf('user', 'ana');
    await second.close();
    const third = await FileSessionStore.open(file);
    expect(await third.listOf('user', 'ana')).toEqual([]);
    await third.close();
  });
});

describe('sessions: last seen', () => {
  it('is written when a request comes LAST_SEEN_GRANULARITY_MS after the last one written, not on every request', async () => {
    let now = Date.parse('2026-01-01T10:00:00.000Z');
    const store = new MemorySessionStore();
    const sessions = new Sessions({ store, secret: 's'.repeat(40), cookieSecure: false, clock: () => new Date(now) });
    const { cookieValue, principal } = await sessions.issue('user', 'ana');
    const header = `${USER_SESSION_COOKIE}=${cookieValue}`;
    await sessions.verify(header);
    expect((await store.get(principal.sessionId))?.lastSeenAt).toBeUndefined();
    now += LAST_SEEN_GRANULARITY_MS;
    await sessions.verify(header);
    await eventually(async () => expect((await store.get(principal.sessionId))?.lastSeenAt).toBe(new Date(now).toISOString()));
    expect((await sessions.sessionsOf('user', 'ana')).map((r) => r.id)).toEqual([principal.sessionId]);
  });
});

describe.skipIf(!redisUp)('distributed sessions: signing a member out everywhere', () => {
  it('ends the sessions another process has cached (its revocations are announced)', async () => {
    const prefix = `test:${randomUUID()}:sessions:`;
    const secret = 's'.repeat(40);
    const aStore = new RedisSessionStore(new Redis(redisUrl), prefix, true);
    const bStore = await RedisSessionStore.withLocalCache(new Redis(redisUrl), prefix, { logger: pino({ level: 'silent' }) }, true);
    const a = new Sessions({ store: aStore, secret, cookieSecure: false, clock: () => new Date() });
    const b = new Sessions({ store: bStore, secret, cookieSecure: false, clock: () => new Date() });
    try {
      const kept = await a.issue('user', 'ana');
      const ended = await a.issue('user', 'ana');
      const endedHeader = `${USER_SESSION_COOKIE}=${ended.cookieValue}`;
      await eventually(async () => expect(bStore.cacheStats?.enabled).toBe(true));
      expect((await b.verify(endedHeader)).user).toMatchObject({ id: 'ana' });
      expect((await b.verify(endedHeader)).user).toMatchObject({ id: 'ana' }); // now from b's memory
      expect(await a.endAllOf('user', 'ana', kept.principal.sessionId)).toBe(1);
      await eventually(async () => expect((await b.verify(endedHeader)).user).toBeNull());
      expect((await b.verify(`${USER_SESSION_COOKIE}=${kept.cookieValue}`)).user).toMatchObject({ id: 'ana' });
    } finally {
      await aStore.close();
      await bStore.close();
    }
  });

  it("is refused by query-api's verifier at once (it keeps no copy of a session)", async () => {
    const redisPrefix = `test:${randomUUID()}:`;
    const store = new RedisSessionStore(new Redis(redisUrl), `${redisPrefix}sessions:`, true);
    const sessions = new Sessions({ store, secret: 's'.repeat(40), cookieSecure: false, clock: () => new Date() });
    const queryRedis = new Redis(redisUrl);
    const queryApi = createRedisSessionVerifier({ redis: queryRedis, redisPrefix, sessionSecret: 's'.repeat(40), cookieSecure: false });
    try {
      const { cookieValue } = await sessions.issue('user', 'ana');
      const header = `${USER_SESSION_COOKIE}=${cookieValue}`;
      expect((await queryApi.verify(header)).user).toMatchObject({ id: 'ana' });
      await sessions.endAllOf('user', 'ana');
      expect((await queryApi.verify(header)).user).toBeNull();
    } finally {
      await store.close();
      queryRedis.disconnect();
    }
  });
});

