import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dropPostgresSchema, requireService, testPostgresUrl } from '../test-support/services';
import { FileKeyStore } from './file-key-store';
import { CachedKeyStore, MemoryKeyStore, type KeyStore } from './key-store';
import { PostgresKeyStore } from './postgres-key-store';

/** Every file under `dir`, as bytes. */
function filesUnder(dir: string): Buffer[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => readFileSync(join(d.parentPath, d.name)));
}

const holds = (files: Buffer[], key: Buffer) => files.some((f) => f.includes(key) || f.includes(key.toString('base64')) || f.includes(key.toString('hex')));

/** What every key store must do, whatever keeps the keys. */
function describeKeyStore(name: string, open: () => Promise<{ store: KeyStore; reopen?: () => Promise<KeyStore> }>) {
  describe(`${name} key store`, () => {
    it('creates keys only on the write path, one per member, the same on every look', async () => {
      const { store } = await open();
      expect((await store.keysFor(['a', 'b'])).size).toBe(0);
      const created = await store.keysFor(['a', 'b', 'a'], { create: true });
      expect([...created.keys()].sort()).toEqual(['a', 'b']);
      expect(created.get('a')).toHaveLength(32);
      expect(created.get('a')!.equals(created.get('b')!)).toBe(false);
      const again = await store.keysFor(['a', 'b', 'c'], { create: true });
      expect(again.get('a')!.equals(created.get('a')!)).toBe(true);
      expect(again.has('c')).toBe(true);
      await store.close();
    });

    it('answers alike for a few members and for thousands at once, leaving out the destroyed and the unknown', async () => {
      const { store } = await open();
      const members = Array.from({ length: 2_500 }, (_, i) => `member-${i}`);
      const created = await store.keysFor(members, { create: true });
      const destroyed = new Set(members.filter((_, i) => i % 7 === 0));
      for (const id of destroyed) await store.destroy(id);
      const unknown = Array.from({ length: 100 }, (_, i) => `stranger-${i}`);
      // What a look at `ids` must answer: the created keys of those not destroyed, nothing for the rest.
      const expected = (ids: string[]) => ids.filter((id) => created.has(id) && !destroyed.has(id)).map((id) => [id, created.get(id)!.toString('hex')]).sort();
      const answer = async (ids: string[]) => [...(await store.keysFor(ids))].map(([id, key]) => [id, key.toString('hex')]).sort();
      const all = [...unknown, ...members];
      expect(await answer(all)).toEqual(expected(all));
      const few = all.slice(50, 350);
      const fewAnswer = await answer(few);
      expect(fewAnswer).toEqual(expected(few));
      expect(fewAnswer.length).toBeGreaterThan(200);
      await store.close();
    });

    it('a destroyed key is gone for good: never read, never created again', async () => {
      const { store, reopen } = await open();
      await store.keysFor(['gone', 'kept'], { create: true });
      await store.destroy('gone');
      await store.destroy('gone');
      expect([...(await store.keysFor(['gone', 'kept'])).keys()]).toEqual(['kept']);
      expect([...(await store.keysFor(['gone', 'kept'], { create: true })).keys()]).toEqual(['kept']);
      await store.close();
      if (reopen) {
        const reopened = await reopen();
        expect([...(await reopened.keysFor(['gone', 'kept'], { create: true })).keys()]).toEqual(['kept']);
        await reopened.close();
      }
    });
  });
}

describeKeyStore('Memory', async () => ({ store: new MemoryKeyStore() }));
describeKeyStore('Cached memory', async () => ({ store: new CachedKeyStore(new MemoryKeyStore(), 2) }));

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pass-keys-'));
  dirs.push(dir);
  return dir;
};

describeKeyStore('File', async () => {
  const dir = freshDir();
  return { store: new FileKeyStore(dir), reopen: async () => new FileKeyStore(dir) };
});

describe('File key store on disk', () => {
  it('keeps keys across a restart, and after a destroy no file under its folder holds the key', async () => {
    const dir = freshDir();
    const ids = Array.from({ length: 600 }, () => randomUUID());
    const store = new FileKeyStore(dir);
    const keys = await store.keysFor(ids, { create: true });
    await store.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.keys')).length).toBeGreaterThan(200);

    const victim = ids[7]!;
    const victimKey = Buffer.from(keys.get(victim)!);
    expect(holds(filesUnder(dir), victimKey)).toBe(true);
    const reopened = new FileKeyStore(dir);
    expect((await reopened.keysFor([victim])).get(victim)!.equals(victimKey)).toBe(true);
    await reopened.destroy(victim);
    await reopened.close();

    expect(holds(filesUnder(dir), victimKey)).toBe(false);
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(false);
    const after = new FileKeyStore(dir);
    const read = await after.keysFor(ids);
    expect(read.size).toBe(ids.length - 1);
    expect(read.get(ids[8]!)!.equals(keys.get(ids[8]!)!)).toBe(true);
  });

  it('concurrent first looks for one member agree on one key, and a key handed out is already on disk', async () => {
    const dir = freshDir();
    const store = new FileKeyStore(dir);
    // Twenty appends of one new member at once, as a burst of their first events would ask.
    const looks = await Promise.all(Array.from({ length: 20 }, () => store.keysFor(['burst'], { create: true })));
    const key = looks[0]!.get('burst')!;
    for (const look of looks) expect(look.get('burst')!.equals(key)).toBe(true);
    // Read by a fresh process (no memory shared), before this one closes: the key is durable.
    expect((await new FileKeyStore(dir).keysFor(['burst'])).get('burst')!.equals(key)).toBe(true);
    await store.close();
  });

  it('a line torn by a crash is cut, and the keys before it and after it are kept', async () => {
    const dir = freshDir();
    const store = new FileKeyStore(dir);
    const first = (await store.keysFor(['m'], { create: true })).get('m')!;
    await store.close();
    const shard = readdirSync(dir).find((f) => f.endsWith('.keys'))!;
    appendFileSync(join(dir, shard), '{"m":"half","k":"AAA');
    const reopened = new FileKeyStore(dir);
    expect((await reopened.keysFor(['m'])).get('m')!.equals(first)).toBe(true);
    expect(readFileSync(join(dir, shard), 'utf8').endsWith('\n')).toBe(true);
    await reopened.close();
  });
});

describeKeyStore('PostgreSQL (on PGlite)', async () => {
  const db = await PGlite.create();
  await db.exec('CREATE SCHEMA es');
  const client = { query: (text: string, params?: unknown[]) => db.query(text, params) } as never;
  const store = await PostgresKeyStore.open(client, 'es');
  return { store, reopen: async () => PostgresKeyStore.open(client, 'es') };
});

describe('moving keys from files to PostgreSQL (move-to-postgres)', () => {
  it('every key goes over, destroyed ones stay destroyed', async () => {
    const files = new FileKeyStore(freshDir());
    const keys = await files.keysFor(['a', 'b', 'c'], { create: true });
    await files.destroy('b');
    const db = await PGlite.create();
    await db.exec('CREATE SCHEMA es');
    const target = await PostgresKeyStore.open({ query: (text: string, params?: unknown[]) => db.query(text, params) } as never, 'es');
    expect(await target.importKeys(files.entries(), 2)).toBe(3);
    const moved = await target.keysFor(['a', 'b', 'c'], { create: true });
    expect([...moved.keys()].sort()).toEqual(['a', 'c']);
    expect(moved.get('a')!.equals(keys.get('a')!)).toBe(true);
    await db.close();
  });
});

const url = testPostgresUrl();
const reachable = await requireService('PostgreSQL key store', url, 5432);

if (reachable) {
  // The same contract on the server the distributed layout runs, whose planner sizes its plans.
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.end();
    for (const schema of schemas) await dropPostgresSchema(url, schema);
  });
  describeKeyStore('PostgreSQL', async () => {
    const schema = `keys_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    schemas.push(schema);
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pools.push(pool);
    await pool.query(`CREATE SCHEMA ${schema}`);
    // The store's close() leaves the pool to its owner: it serves the reopen, and ends after the file.
    return { store: await PostgresKeyStore.open(pool, schema), reopen: async () => PostgresKeyStore.open(pool, schema) };
  });
}

describe.skipIf(!reachable)('PostgreSQL key store', () => {
  it('a destroyed key is in no row any more (a logical dump cannot hold it)', async () => {
    const schema = `keys_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      await pool.query(`CREATE SCHEMA ${schema}`);
      const store = await PostgresKeyStore.open(pool, schema);
      const keys = await store.keysFor(['x', 'y'], { create: true });
      await store.destroy('x');
      const { rows } = await pool.query<{ row: string }>(`SELECT t::text AS row FROM ${schema}.member_keys t`);
      const dump = rows.map((r) => r.row).join('\n');
      expect(dump).toContain(keys.get('y')!.toString('hex'));
      expect(dump).not.toContain(keys.get('x')!.toString('hex'));
      expect(dump).toContain('x');
    } finally {
      await pool.end();
      await dropPostgresSchema(url, schema);
    }
  });
});

describe('Cached key store: cold members looked up together', () => {
  /** The memory store, recording every look-up that reaches it (what a database would be asked). */
  function recordingStore() {
    const inner = new MemoryKeyStore();
    const asked: { ids: string[]; create: boolean }[] = [];
    const store: KeyStore = {
      keysFor: (ids, options) => (asked.push({ ids: [...ids].sort(), create: options?.create === true }), inner.keysFor(ids, options)),
      destroy: (id) => inner.destroy(id),
      close: () => inner.close(),
    };
    return { inner, asked, store };
  }

  it('given cold members of concurrent commands, when their keys are asked for at once, then the key store gets one look-up per path and each caller only its own keys', async () => {
    const { inner, asked, store } = recordingStore();
    const existing = await inner.keysFor(['a', 'b', 'c'], { create: true });
    const cached = new CachedKeyStore(store);

    const [a, bx, c, y] = await Promise.all([cached.keysFor(['a']), cached.keysFor(['b', 'x']), cached.keysFor(['c'], { create: true }), cached.keysFor(['y'])]);

    expect([...a]).toEqual([['a', existing.get('a')]]);
    expect([...bx]).toEqual([['b', existing.get('b')]]);
    expect([...c]).toEqual([['c', existing.get('c')]]);
    expect(y.size).toBe(0);
    expect(asked).toEqual([
      { ids: ['a', 'b', 'x', 'y'], create: false },
      { ids: ['c'], create: true },
    ]);
    // The read path gathered beside a write created no key for its members.
    expect((await inner.keysFor(['x', 'y'])).size).toBe(0);
  });

  it('given keys looked up once, when they are asked for again, then they come from memory; a look-up after the turn is its own', async () => {
    const { inner, asked, store } = recordingStore();
    await inner.keysFor(['a', 'b'], { create: true });
    const cached = new CachedKeyStore(store);
    await Promise.all([cached.keysFor(['a']), cached.keysFor(['b'])]);
    expect(asked).toHaveLength(1);

    expect((await cached.keysFor(['a', 'b'])).size).toBe(2);
    expect(asked).toHaveLength(1);
    await cached.keysFor(['d'], { create: true });
    expect(asked).toEqual([
      { ids: ['a', 'b'], create: false },
      { ids: ['d'], create: true },
    ]);
  });
});

describe('Cached key store: an erasure while a key is being read', () => {
  /** A key store whose look-ups answer only when the test says so, as read at the moment they were asked. */
  function slowStore() {
    const inner = new MemoryKeyStore();
    const waiting: (() => void)[] = [];
    const store: KeyStore = {
      keysFor: async (ids, options) => {
        const answer = await inner.keysFor(ids, options);
        await new Promise<void>((release) => waiting.push(release));
        return answer;
      },
      destroy: (id) => inner.destroy(id),
      close: () => inner.close(),
    };
    const answerAll = () => waiting.splice(0).forEach((release) => release());
    return { inner, store, waiting, answerAll };
  }

  const erasures: [string, (cached: CachedKeyStore, id: string, inner: KeyStore) => Promise<void>][] = [
    ['destroyed here', (cached, id) => cached.destroy(id)],
    ['erased by another process (forgotten)', async (cached, id, inner) => (await inner.destroy(id), cached.forget(id))],
  ];

  it.each(erasures)('given a key read before its member is %s, when the answer comes after, then it is neither handed out nor kept', async (_, erase) => {
    const { inner, store, waiting, answerAll } = slowStore();
    await inner.keysFor(['gone', 'kept'], { create: true });
    const cached = new CachedKeyStore(store);

    const reading = cached.keysFor(['gone', 'kept']);
    await vi.waitFor(() => expect(waiting).toHaveLength(1));
    await erase(cached, 'gone', inner);
    answerAll();

    expect([...(await reading).keys()]).toEqual(['kept']);
    const again = cached.keysFor(['gone', 'kept']);
    await new Promise((r) => setTimeout(r, 10));
    answerAll();
    expect([...(await again).keys()]).toEqual(['kept']);
  });
});
