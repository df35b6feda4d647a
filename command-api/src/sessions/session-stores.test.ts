import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE } from '@pass/events';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { FileSessionStore } from './file-session-store';
import { RedisSessionStore } from './redis-session-store';
import { MemorySessionStore } from './session-store';
import { Sessions } from './sessions';

const clock = () => new Date();

describe('file session store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pass-sessions-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the file store ignores a torn last line', async () => {
    const file = join(dir, 'torn.jsonl');
    const s1 = await FileSessionStore.open(file);
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    await s1.create({ id: 'a', kind: 'user', subjectId: 'u1', createdAt: new Date().toISOString(), expiresAt });
    await s1.close();
    const { appendFile } = await import('node:fs/promises');
    await appendFile(file, '{"op":"create","rec');
    const s2 = await FileSessionStore.open(file);
    expect(await s2.get('a')).toMatchObject({ subjectId: 'u1' });
  });
});

const redisUrl = testRedisUrl();
const redisUp = await requireService('command-api redis sessions', redisUrl, 6379);

describe.skipIf(!redisUp)('distributed sessions (Redis)', () => {
  it('a session issued by one process is honoured by another, and a logout in one ends it in both', async () => {
    const prefix = `test:${randomUUID()}:sessions:`;
    const a = new Sessions({ store: new RedisSessionStore(new Redis(redisUrl), prefix, true), secret: 's'.repeat(40), cookieSecure: true, clock });
    const bStore = new RedisSessionStore(new Redis(redisUrl), prefix, true);
    const b = new Sessions({ store: bStore, secret: 's'.repeat(40), cookieSecure: true, clock });
    try {
      const { cookieValue } = await a.issue('user', 'u-42');
      const header = `${USER_SESSION_COOKIE}=${cookieValue}`;
      expect((await b.verify(header)).user).toMatchObject({ id: 'u-42', kind: 'user' });
      await b.revoke(header, 'user');
      expect((await a.verify(header)).user).toBeNull();
    } finally {
      await bStore.close();
      await (a as unknown as { options: { store: RedisSessionStore } }).options.store.close();
    }
  });
});

describe.skipIf(!redisUp)('session records cached in each command-api process (Redis)', () => {
  const silent = pino({ level: 'silent' });
  const secret = 's'.repeat(40);
  const open = async (prefix: string) => {
    const store = await RedisSessionStore.withLocalCache(new Redis(redisUrl), prefix, { logger: silent }, true);
    return { store, sessions: new Sessions({ store, secret, cookieSecure: true, clock }) };
  };
  /** Polls until `check` holds (a revocation travels through Redis pub/sub), failing after 2 s. */
  const eventually = async (check: () => Promise<boolean>) => {
    const until = Date.now() + 2_000;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('condition not reached within 2 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  it("a member's later requests are verified from memory, and a logout on another process ends the session there too", async () => {
    const prefix = `test:${randomUUID()}:sessions:`;
    const a = await open(prefix);
    const b = await open(prefix);
    try {
      const { cookieValue } = await b.sessions.issue('user', 'u-7');
      const header = `${USER_SESSION_COOKIE}=${cookieValue}`;
      for (let i = 0; i < 5; i++) expect((await a.sessions.verify(header)).user).toMatchObject({ id: 'u-7' });
      expect(a.store.cacheStats).toMatchObject({ enabled: true, hits: 4, misses: 1, size: 1 });

      await b.sessions.revoke(header, 'user');
      // B refuses at once; A as soon as it hears the announcement (no request reached Redis for it).
      expect((await b.sessions.verify(header)).user).toBeNull();
      await eventually(async () => (await a.sessions.verify(header)).user === null);
      expect(a.store.cacheStats?.size).toBe(0);
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });

  it('a process whose subscriber was cut off forgets what it cached, and caches again once resubscribed', async () => {
    const prefix = `test:${randomUUID()}:sessions:`;
    const a = await open(prefix);
    const raw = new Redis(redisUrl);
    try {
      const first = await a.sessions.issue('user', 'u-9');
      const header = `${USER_SESSION_COOKIE}=${first.cookieValue}`;
      await a.sessions.verify(header);
      expect(a.store.cacheStats).toMatchObject({ enabled: true, size: 1 });

      // A revocation A never hears (as if announced while its subscriber was down), then the cut itself.
      await raw.del(`${prefix}${first.principal.sessionId}`);
      await raw.client('KILL', 'ID', String(a.store.revocationClientId));
      await eventually(async () => (await a.sessions.verify(header)).user === null);

      await eventually(async () => a.store.cacheStats?.enabled === true);
      expect((await a.sessions.verify(header)).user).toBeNull();
      const second = await a.sessions.issue('user', 'u-10');
      const secondHeader = `${USER_SESSION_COOKIE}=${second.cookieValue}`;
      const before = a.store.cacheStats!.hits;
      await a.sessions.verify(secondHeader);
      expect((await a.sessions.verify(secondHeader)).user).toMatchObject({ id: 'u-10' });
      expect(a.store.cacheStats!.hits).toBe(before + 1);
    } finally {
      raw.disconnect();
      await a.store.close();
    }
  });
});

describe('session records cache without Redis', () => {
  it('a command-api starting while Redis is unreachable goes on without the cache (readiness reports Redis)', async () => {
    const unreachable = new Redis('redis://127.0.0.1:9', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 200 });
    unreachable.on('error', () => undefined);
    const started = performance.now();
    const store = await RedisSessionStore.withLocalCache(unreachable, 'test:unreachable:sessions:', { logger: pino({ level: 'silent' }) });
    try {
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(store.cacheStats).toMatchObject({ enabled: false, size: 0 });
      await expect(store.get('any')).rejects.toThrow();
    } finally {
      await store.close();
      unreachable.disconnect();
    }
  });
});

describe('cookie signatures', () => {
  it('a cookie whose signature was altered is refused, also after the genuine one was accepted', async () => {
    const sessions = new Sessions({ store: new MemorySessionStore(), secret: 's'.repeat(40), cookieSecure: true, clock });
    const { cookieValue } = await sessions.issue('user', 'u-11');
    const last = cookieValue.at(-1) === 'A' ? 'B' : 'A';
    const forged = `${USER_SESSION_COOKIE}=${cookieValue.slice(0, -1)}${last}`;
    expect((await sessions.verify(forged)).user).toBeNull();
    expect((await sessions.verify(`${USER_SESSION_COOKIE}=${cookieValue}`)).user).toMatchObject({ id: 'u-11' });
    expect((await sessions.verify(forged)).user).toBeNull();
    expect((await sessions.verify(`${USER_SESSION_COOKIE}=${cookieValue.split('.')[0]}.`)).user).toBeNull();
  });
});
