import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { sampleUserRow } from '../../test-support/user-row';
import { createRedisReadModels } from '../redis';
import { deleteKeysUnder } from '../redis-admin';
import { searchTerms, searchText } from '../search-text';
import type { Keyspace } from '../port';
import type { ReadModelWrite } from '../types';
import { TEXT_LOG_ENTRIES } from './keys';

const reachable = await requireService('projector: text index copies (Redis)', testRedisUrl(), 6379);

/** A row with a name, scored by its passes, as the projections write it. */
const put = (seq: number, fullname: string, passes = 1): ReadModelWrite[] => {
  const row = sampleUserRow(seq, { fullname, country: 'Peru', passes, createdAt: '2026-12-06T10:00:00.000Z' });
  return [
    { op: 'user', row },
    { op: 'zadd', set: 'users', member: row.key, score: -passes },
    { op: 'searchText', key: row.key, text: searchText(row) },
  ];
};

async function names(ks: Keyspace, q: string): Promise<[number, string[]]> {
  const page = await ks.users({ membersOnly: true, sets: [], text: { terms: searchTerms(q), registry: false, posted: false }, offset: 0, limit: 50 });
  return [page.total, page.rows.map((r) => r.row.fullname)];
}

describe.skipIf(!reachable)("a query-api's copy of the text index", () => {
  async function twoProcesses() {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    const root = `test:tm:${randomUUID()}`;
    // The projector's store and a reader's, as two processes hold them.
    const writer = createRedisReadModels({ redis, root });
    const reader = createRedisReadModels({ redis: redis.duplicate(), root });
    let checkpoint: string | null = null;
    let n = 0;
    const apply = async (writes: ReadModelWrite[]) => {
      const next = `1/${++n}`;
      expect(await (await writer.active()).apply({ expectedCheckpoint: checkpoint, checkpoint: next, writes })).toBe('applied');
      checkpoint = next;
    };
    return { redis, root, writer, reader, apply, reset: () => ((checkpoint = null), (n = 0)) };
  }

  it('follows every batch after it loaded: new rows, new names, new scores', async () => {
    const { redis, root, reader, apply } = await twoProcesses();
    try {
      await apply(put(1, 'Desk Ann'));
      const ks = await reader.active();
      expect(await ks.prepareSearch()).toBe(true);
      expect(await names(ks, 'esk')).toEqual([1, ['Desk Ann']]);
      await apply([...put(2, 'Nadesko Bo', 3), ...put(1, 'Table Ann')]);
      expect(await names(ks, 'esk')).toEqual([1, ['Nadesko Bo']]);
      expect(await names(ks, 'ann')).toEqual([1, ['Table Ann']]);
      await apply([{ op: 'zadd', set: 'users', member: sampleUserRow(1).key, score: -5 }]);
      expect(await names(ks, 'eru')).toEqual([2, ['Table Ann', 'Nadesko Bo']]);
    } finally {
      await deleteKeysUnder(redis, root);
      redis.disconnect();
    }
  });

  it(`loads again when it fell further behind than the log keeps (${TEXT_LOG_ENTRIES} batches), and answers from the word-start sets meanwhile`, async () => {
    const { redis, root, reader, apply } = await twoProcesses();
    try {
      await apply(put(1, 'Desk Ann'));
      const ks = await reader.active();
      expect(await ks.prepareSearch()).toBe(true);
      for (let i = 0; i < TEXT_LOG_ENTRIES + 50; i++) await apply([{ op: 'zadd', set: 'users', member: sampleUserRow(1).key, score: -(i + 2) }]);
      await apply(put(2, 'Inkdesk Cy', 1000));
      // This search finds its copy too far behind: the word-start sets answer it (none here).
      expect((await ks.users({ membersOnly: true, sets: [], text: { terms: ['esk'], registry: false, posted: false }, offset: 0, limit: 5 })).matchedBy).toBeUndefined();
      expect(await ks.prepareSearch()).toBe(true);
      expect(await names(ks, 'esk')).toEqual([2, ['Inkdesk Cy', 'Desk Ann']]);
    } finally {
      await deleteKeysUnder(redis, root);
      redis.disconnect();
    }
  });

  it('loads again when the keyspace was dropped and projected anew, keeping nothing of the old one', async () => {
    const { redis, root, reader, apply, reset } = await twoProcesses();
    try {
      await apply([...put(1, 'Desk Ann'), ...put(2, 'Desk Bo')]);
      const ks = await reader.active();
      expect(await ks.prepareSearch()).toBe(true);
      expect((await names(ks, 'desk'))[0]).toBe(2);
      await deleteKeysUnder(redis, root);
      reset();
      await apply(put(3, 'Desk Cy'));
      await names(ks, 'desk');
      expect(await ks.prepareSearch()).toBe(true);
      expect(await names(ks, 'desk')).toEqual([1, ['Desk Cy']]);
    } finally {
      await deleteKeysUnder(redis, root);
      redis.disconnect();
    }
  });
});
