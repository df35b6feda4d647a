import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgliteEventStore } from '../event-store/pglite';
import { openPostgresEventStore } from '../event-store/postgres';
import { START, type EventStore, type NewEvent, type RecordedEvent } from '../event-store/port';
import type { SqlEventStore } from '../event-store/sql/store';
import { describeEventStoreContract } from '../test-support/event-store-contract';
import { eventually } from '../test-support/eventually';
import { dropPostgresSchema, requireService, testPostgresUrl } from '../test-support/services';
import { PersonalDataError } from './cipher';
import { EncryptingEventStore } from './encrypting-store';
import { FileKeyStore } from './file-key-store';
import { CachedKeyStore, MemoryKeyStore, type KeysForOptions, type KeyStore } from './key-store';
import { openPersonalDataEventStore } from './open';
import { PostgresKeyStore } from './postgres-key-store';

const at = '2026-01-01T00:00:00.000Z';
const event = (type: string, data: Record<string, unknown>): NewEvent => ({ id: randomUUID(), type, data, metadata: { schemaVersion: 1 } });
const registered = (userId: string, email: string) => event('UserRegistered', { userId, email, passwordHash: 'h', points: 0, priority: '', registeredAt: at });
const chat = (userId: string, nickname: string, message: string) =>
  event('ChatMessageSent', { userId, messageId: randomUUID(), nickname, message, priority: '', pointsSpent: 0, sentAt: at });
const card = (userId: string) =>
  event('CertificatePosted', {
    userId,
    fullname: 'Ann Lee',
    country: 'Peru',
    email: 'ann@example.com',
    link: 'https://ann.example',
    message: 'my card',
    image: { path: 'ab/x.webp', public_id: 'x', url: '/uploads/ab/x.webp' },
    postedAt: at,
  });
const erased = (userId: string) => event('MemberErased', { userId, requestedBy: 'member', erasedAt: at });

/** Counts the key store's look-ups, to see one per batch. */
class CountingKeys implements KeyStore {
  lookups: string[][] = [];
  constructor(readonly inner: KeyStore) {}
  keysFor(ids: readonly string[], options?: KeysForOptions) {
    if (!options?.create) this.lookups.push([...ids]);
    return this.inner.keysFor(ids, options);
  }
  destroy(id: string) {
    return this.inner.destroy(id);
  }
  close() {
    return this.inner.close();
  }
}

const rawRows = async (store: EventStore) =>
  (await (store as SqlEventStore).client.query<{ row: string }>('SELECT data::text || metadata::text AS row FROM event_store.events')).rows.map((r) => r.row).join('\n');

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pass-pd-'));
  dirs.push(dir);
  return dir;
};

describe('EncryptingEventStore', () => {
  it('text a member typed that starts like a sealed value (pd1:…) is sealed like any other and reads back as typed', async () => {
    const inner = await openPgliteEventStore();
    const store = new EncryptingEventStore(inner, new MemoryKeyStore());
    const typed = 'pd1:AAAA secret text';
    await store.append('user-p', [registered('p', 'pat@example.com'), chat('p', 'pd1:', typed)]);
    expect(await rawRows(inner)).not.toContain('secret text');
    const read = await store.readAll();
    expect(read.map((e) => (e.data as { message?: string; nickname?: string }).message ?? null)).toEqual([null, typed]);
    expect((read[1]!.data as { nickname: string }).nickname).toBe('pd1:');
    await store.close();
  });

  it('the inner store never sees a personal field in clear; every read gives it back', async () => {
    const inner = await openPgliteEventStore();
    const store = new EncryptingEventStore(inner, new MemoryKeyStore());
    await store.append('user-a', [registered('a', 'ann@example.com'), card('a'), chat('a', 'annie', 'hello all')]);
    await store.append('email-x', [event('EmailReserved', { email: 'ann@example.com', userId: 'a', reservedAt: at })]);

    const raw = await rawRows(inner);
    for (const secret of ['ann@example.com', 'Ann Lee', 'https://ann.example', 'my card', 'annie', 'hello all']) expect(raw).not.toContain(secret);
    expect(raw).toContain('Peru');
    expect(raw).toContain('ab/x.webp');

    const stream = await store.readStream('user-a');
    expect(stream.map((e) => e.data)).toEqual([
      expect.objectContaining({ email: 'ann@example.com' }),
      expect.objectContaining({ fullname: 'Ann Lee', email: 'ann@example.com', link: 'https://ann.example', message: 'my card', country: 'Peru' }),
      expect.objectContaining({ nickname: 'annie', message: 'hello all' }),
    ]);
    expect((await store.readAll()).map((e) => (e.data as { email?: string }).email).filter(Boolean)).toEqual([
      'ann@example.com',
      'ann@example.com',
      'ann@example.com',
    ]);
    const delivered: RecordedEvent[] = [];
    const sub = store.subscribeToAll({ onEvents: (batch) => void delivered.push(...batch) });
    await eventually(() => expect(delivered).toHaveLength(4));
    await sub.stop();
    expect(delivered[2]!.data).toMatchObject({ nickname: 'annie', message: 'hello all' });
    await store.close();
  });

  it('a subscriber that reads no personal field of a type gets those events sealed, the others in clear, and erasures still finish', async () => {
    const keys = new CountingKeys(new MemoryKeyStore());
    const store = new EncryptingEventStore(await openPgliteEventStore(), keys);
    await store.append('email-x', [event('EmailReserved', { email: 'ann@example.com', userId: 'a', reservedAt: at })]);
    await store.append('user-a', [registered('a', 'ann@example.com')]);
    const delivered: RecordedEvent[] = [];
    const sub = store.subscribeToAll({ sealedTypes: ['EmailReserved'], onEvents: (batch) => void delivered.push(...batch) });
    await eventually(() => expect(delivered).toHaveLength(2));
    await sub.stop();
    expect((delivered[0]!.data as { email: string }).email).toMatch(/^pd1:/);
    expect((delivered[1]!.data as { email: string }).email).toBe('ann@example.com');
    // Only the registration's owner was looked up for this batch.
    expect(keys.lookups).toEqual([['a']]);
    await store.close();
  });

  it('a member erased reads as erased: personal fields empty, everything else as it was, other members untouched', async () => {
    const store = new EncryptingEventStore(await openPgliteEventStore(), new MemoryKeyStore());
    await store.append('user-a', [registered('a', 'ann@example.com'), card('a'), chat('a', 'annie', 'hello')]);
    await store.append('user-b', [registered('b', 'bob@example.com')]);
    await store.append('user-a', [erased('a')]);

    const [reg, posted, said] = await store.readStream('user-a');
    expect(reg!.data).toMatchObject({ userId: 'a', email: '', points: 0 });
    expect(posted!.data).toMatchObject({ fullname: '', email: '', link: '', message: '', country: 'Peru', image: { path: 'ab/x.webp' } });
    expect(said!.data).toMatchObject({ nickname: '', message: '', pointsSpent: 0 });
    expect((await store.readStream('user-b'))[0]!.data).toMatchObject({ email: 'bob@example.com' });
    // Whatever arrives late for an erased member is not kept.
    await store.append('user-a', [chat('a', 'annie', 'late')]);
    expect((await store.readStream('user-a')).at(-1)!.data).toMatchObject({ nickname: '', message: '' });
    await store.close();
  });

  it('an erasure stored without its key destroyed (crash in between) destroys it at the next read', async () => {
    const keys = new MemoryKeyStore();
    const inner = await openPgliteEventStore();
    const store = new EncryptingEventStore(inner, keys);
    await store.append('user-a', [registered('a', 'ann@example.com')]);
    await inner.append('user-a', [erased('a')]);
    expect((await keys.keysFor(['a'])).size).toBe(1);
    expect((await store.readAll())[0]!.data).toMatchObject({ email: '' });
    expect((await keys.keysFor(['a'])).size).toBe(0);
    await store.close();
  });

  it('another process erasing a member: its cached key is dropped when the erasure is read', async () => {
    const shared = new MemoryKeyStore();
    const inner = await openPgliteEventStore();
    const reader = new EncryptingEventStore(inner, new CachedKeyStore(shared));
    const writer = new EncryptingEventStore(inner, new CachedKeyStore(shared));
    await writer.append('user-a', [registered('a', 'ann@example.com')]);
    expect((await reader.readStream('user-a'))[0]!.data).toMatchObject({ email: 'ann@example.com' });
    await writer.append('user-a', [erased('a')]);
    expect((await reader.readStream('user-a'))[0]!.data).toMatchObject({ email: '' });
    await inner.close();
  });

  it('fetches the keys of a batch once, however many events and members it holds', async () => {
    const keys = new CountingKeys(new MemoryKeyStore());
    const store = new EncryptingEventStore(await openPgliteEventStore(), keys);
    for (let i = 0; i < 30; i++) await store.append(`user-${i % 5}`, [chat(`m${i % 5}`, `nick${i}`, `text ${i}`)]);
    keys.lookups = [];
    const all = await store.readAll({ maxCount: 1000 });
    expect(all).toHaveLength(30);
    expect(keys.lookups).toEqual([['m0', 'm1', 'm2', 'm3', 'm4']]);
    keys.lookups = [];
    const batches: number[] = [];
    const sub = store.subscribeToAll({ after: START, maxBatchSize: 10, onEvents: (batch) => void batches.push(batch.length) });
    await eventually(() => expect(batches.reduce((a, b) => a + b, 0)).toBe(30));
    await sub.stop();
    expect(keys.lookups).toHaveLength(batches.length);
    await store.close();
  });

  it('a catch-up page of hundreds of members reads as small reads do: clear text, erased members empty', async () => {
    const store = new EncryptingEventStore(await openPgliteEventStore(), new MemoryKeyStore());
    // 40 members, 12 messages each, one card each; member 7 erased halfway.
    for (let m = 0; m < 40; m++) {
      await store.append(`user-${m}`, [registered(`m${m}`, `m${m}@example.com`), card(`m${m}`), ...Array.from({ length: 6 }, (_, i) => chat(`m${m}`, `nick${m}`, `hello ${m}.${i}`))]);
      if (m === 7) await store.append('user-7', [erased('m7')]);
      await store.append(`user-${m}`, Array.from({ length: 6 }, (_, i) => chat(`m${m}`, `nick${m}`, `again ${m}.${i}`)));
    }
    // Small reads: one stream at a time.
    const expected: RecordedEvent[] = [];
    for (let m = 0; m < 40; m++) expected.push(...(await store.readStream(`user-${m}`)));
    const pages: number[] = [];
    const delivered: RecordedEvent[] = [];
    // Pages of 356 of the 561 events: the first holds hundreds of members' sealed events at once.
    const sub = store.subscribeToAll({ maxBatchSize: 356, onEvents: (batch) => void (pages.push(batch.length), delivered.push(...batch)) });
    await eventually(() => expect(delivered).toHaveLength(expected.length));
    await sub.stop();
    expect(pages[0]).toBe(356);
    const byId = new Map(delivered.map((e) => [e.id, e.data]));
    expect(expected.map((e) => byId.get(e.id))).toEqual(expected.map((e) => e.data));
    expect(delivered.find((e) => e.type === 'ChatMessageSent' && (e.data as { userId: string }).userId === 'm7')!.data).toMatchObject({ nickname: '', message: '' });
    expect(delivered.find((e) => e.type === 'CertificatePosted' && (e.data as { userId: string }).userId === 'm8')!.data).toMatchObject({ fullname: 'Ann Lee', email: 'ann@example.com' });
    await store.close();
  });

  it('a tampered field in a catch-up page stops the subscription, before any handler, with the error a small read gives', async () => {
    const inner = await openPgliteEventStore();
    const store = new EncryptingEventStore(inner, new MemoryKeyStore());
    for (let m = 0; m < 30; m++) await store.append(`user-${m}`, Array.from({ length: 12 }, (_, i) => chat(`m${m}`, `nick${m}`, `hello ${i}`)));
    await inner.client.query(`UPDATE event_store.events SET data = jsonb_set(data, '{nickname}', to_jsonb('pd1:' || repeat('A', 60))) WHERE stream_id = 'user-20' AND revision = 3`);
    await expect(store.readStream('user-20')).rejects.toThrow(/ChatMessageSent.* does not verify/);
    const errors: unknown[] = [];
    const handled: number[] = [];
    const sub = store.subscribeToAll({ maxBatchSize: 1_000, onEvents: (batch) => void handled.push(batch.length), onError: (error) => void errors.push(error) });
    await eventually(() => expect(errors).toHaveLength(1));
    await sub.stop();
    expect(handled).toEqual([]);
    expect(errors[0]).toBeInstanceOf(PersonalDataError);
    expect((errors[0] as Error).message).toMatch(/ChatMessageSent.* does not verify/);
    await store.close();
  });

  it('refuses tampered data instead of reading it as erased', async () => {
    const inner = await openPgliteEventStore();
    const store = new EncryptingEventStore(inner, new MemoryKeyStore());
    await store.append('user-a', [registered('a', 'ann@example.com')]);
    await inner.client.query(`UPDATE event_store.events SET data = jsonb_set(data, '{email}', to_jsonb('pd1:' || repeat('A', 60)))`);
    await expect(store.readStream('user-a')).rejects.toThrow(/does not verify/);
    await store.close();
  });

  it('standalone on disk: after an erasure no file of the store or its keys holds the key, and a reopen reads the member as erased', async () => {
    const dataDir = freshDir();
    const url = `pglite:${join(dataDir, 'events')}`;
    const store = await openPersonalDataEventStore(url);
    await store.append('user-a', [registered('a', 'ann@example.com')]);
    await store.append('user-b', [registered('b', 'bob@example.com')]);
    const key = (await store.keys.keysFor(['a'])).get('a')!;
    const keyCopies = [key.toString('base64'), key.toString('hex')];
    await store.append('user-a', [erased('a')]);
    await store.close();

    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.some((d) => d.parentPath.endsWith('member-keys'))).toBe(true);
    for (const f of files) {
      const bytes = readFileSync(join(f.parentPath, f.name));
      expect(bytes.includes(key)).toBe(false);
      for (const copy of keyCopies) expect(bytes.includes(copy)).toBe(false);
      expect(bytes.includes('ann@example.com')).toBe(false);
      expect(bytes.includes('bob@example.com')).toBe(false);
    }
    const reopened = await openPersonalDataEventStore(url);
    expect((await reopened.readAll()).map((e) => (e.data as { email?: string }).email)).toEqual(['', 'bob@example.com', undefined]);
    await reopened.close();
  });
});

describeEventStoreContract('Encrypting over PGlite (directory)', async () => {
  const dataDir = freshDir();
  return {
    open: async () => new EncryptingEventStore(await openPgliteEventStore({ dataDir: join(dataDir, 'events') }), new FileKeyStore(join(dataDir, 'member-keys'))),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});

const pgUrl = testPostgresUrl();
const reachable = await requireService('Encrypting over PostgreSQL', pgUrl, 5432);

describeEventStoreContract(
  'Encrypting over PostgreSQL',
  async () => {
    const schema = `pd_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    return {
      open: async () => {
        const inner = await openPostgresEventStore({ connectionString: pgUrl, schema, poolSize: 8 });
        return new EncryptingEventStore(inner, new CachedKeyStore(await PostgresKeyStore.open(inner.client, schema)));
      },
      dispose: () => dropPostgresSchema(pgUrl, schema),
    };
  },
  { skip: !reachable },
);

describe.skipIf(!reachable)('Encrypting over PostgreSQL: rows at rest', () => {
  it('no personal field in clear in the events table; an erased member has no key row', async () => {
    const schema = `pd_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const store = await openPersonalDataEventStore(`${pgUrl}?schema=${schema}`);
    try {
      await store.append('user-a', [registered('a', 'ann@example.com'), chat('a', 'annie', 'hello all')]);
      await store.append('user-a', [erased('a')]);
      const inner = store.inner as SqlEventStore;
      const { rows } = await inner.client.query<{ row: string }>(`SELECT e::text AS row FROM ${schema}.events e UNION ALL SELECT k::text FROM ${schema}.member_keys k`);
      const dump = rows.map((r) => r.row).join('\n');
      for (const secret of ['ann@example.com', 'annie', 'hello all']) expect(dump).not.toContain(secret);
      expect((await store.readStream('user-a'))[1]!.data).toMatchObject({ nickname: '', message: '' });
    } finally {
      await store.close();
      await dropPostgresSchema(pgUrl, schema);
    }
  });
});
