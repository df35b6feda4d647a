import { describe, expect, it } from 'vitest';
import { SessionRecordCache, type SessionRecordCacheOptions } from './session-record-cache';
import type { SessionRecord } from './session-store';

const record = (id: string): SessionRecord => ({ id, kind: 'user', subjectId: `u-${id}`, createdAt: '2026-11-21T10:00:00.000Z', expiresAt: '2026-11-22T10:00:00.000Z' });

/** A store whose reads are counted and, when asked, held until released. */
function countingStore() {
  const reads: string[] = [];
  let hold: Promise<void> | undefined;
  return {
    reads,
    holdNext() {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return release;
    },
    load: async (id: string) => {
      reads.push(id);
      const waiting = hold;
      hold = undefined;
      if (waiting) await waiting;
      return id.startsWith('unknown') ? null : record(id);
    },
  };
}

/** A cache that is on, as it is while revocations are heard. */
function enabledCache(options?: SessionRecordCacheOptions): SessionRecordCache {
  const cache = new SessionRecordCache(options);
  cache.enabled = true;
  return cache;
}

describe('session record cache', () => {
  it('given a record read once, when it is read again, then the store is not asked', async () => {
    const store = countingStore();
    const cache = enabledCache();
    expect(await cache.read('a', store.load)).toEqual(record('a'));
    expect(await cache.read('a', store.load)).toEqual(record('a'));
    expect(store.reads).toEqual(['a']);
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 1 });
  });

  it('given a read in flight, when its id is revoked before the answer, then the answer is returned but not kept', async () => {
    const store = countingStore();
    const cache = enabledCache();
    const release = store.holdNext();
    const reading = cache.read('a', store.load);
    cache.forget('a');
    release();
    expect(await reading).toEqual(record('a'));
    await cache.read('a', store.load);
    expect(store.reads).toEqual(['a', 'a']);
  });

  it('given a read in flight, when everything is forgotten (subscriber lost), then the answer is not kept', async () => {
    const store = countingStore();
    const cache = enabledCache();
    const release = store.holdNext();
    const reading = cache.read('a', store.load);
    cache.enabled = false;
    cache.enabled = true;
    release();
    await reading;
    expect(cache.size).toBe(0);
  });

  it('given the cache is off, then every read goes to the store and nothing is kept', async () => {
    const store = countingStore();
    const cache = new SessionRecordCache();
    await cache.read('a', store.load);
    await cache.read('a', store.load);
    expect(store.reads).toEqual(['a', 'a']);
    expect(cache.size).toBe(0);
  });

  it('given unknown ids, then they are not kept (each asks the store)', async () => {
    const store = countingStore();
    const cache = enabledCache();
    expect(await cache.read('unknown-1', store.load)).toBeNull();
    expect(await cache.read('unknown-1', store.load)).toBeNull();
    expect(store.reads).toEqual(['unknown-1', 'unknown-1']);
  });

  it('given a record older than the maximum age, then it is read again', async () => {
    let now = 0;
    const store = countingStore();
    const cache = enabledCache({ maxAgeMs: 1_000, now: () => now });
    await cache.read('a', store.load);
    now = 999;
    await cache.read('a', store.load);
    now = 1_000;
    await cache.read('a', store.load);
    expect(store.reads).toEqual(['a', 'a']);
  });

  it('given a full cache, then the record cached first is dropped first', async () => {
    const store = countingStore();
    const cache = enabledCache({ maxEntries: 2 });
    for (const id of ['a', 'b', 'c', 'b', 'a']) await cache.read(id, store.load);
    expect(store.reads).toEqual(['a', 'b', 'c', 'a']);
    expect(cache.size).toBe(2);
  });
});
