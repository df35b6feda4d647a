import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessageView, GlobalPostView, ProgressDay } from '@pass/events';
import type { ReadModelStore } from '../read-models/port';
import { parseQuery, rankKey, rowIndexSetList, UNPAIRED_SET, wordPairSets } from '../read-models/search';
import { searchTerms, searchText } from '../read-models/search-text';
import { sampleUserRow } from './user-row';
import { CHAT_HISTORY_LIMIT, emptyMain, type ReadModelWrite, type UserRow } from '../read-models/types';

/**
 * The one contract every ReadModelStore adapter passes. `open` gives a fresh, isolated store;
 * `close` removes whatever it wrote.
 */
export function readModelStoreContract(name: string, open: () => Promise<{ store: ReadModelStore; close: () => Promise<void> }>): void {
  describe(`ReadModelStore contract: ${name}`, () => {
    let store: ReadModelStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    const row = sampleUserRow;
    /**
     * Writes that put a user in `users` and in the given index sets, scored -passes, plus the
     * pair sets of their word starts, as the projections index a row (search.ts).
     * `unpaired`: index the row as one too long to pair instead.
     */
    const putUser = (r: UserRow, sets: string[] = [], unpaired = false): ReadModelWrite[] => {
      const words = sets.filter((s) => !s.includes('/') && !s.startsWith('ix:@')).map((s) => s.slice(3));
      const pairs = unpaired ? [UNPAIRED_SET] : wordPairSets(words);
      return [
        { op: 'user', row: r },
        ...['users', ...sets, ...pairs].map((set) => ({ op: 'zadd' as const, set: set as 'users', member: r.key, score: r.passes > 0 ? -r.passes : 0 })),
      ];
    };
    const message = (i: number): ChatMessageView => ({
      id: `m${i}`,
      userId: 'u1',
      nickname: 'Ana',
      message: `hello ${i}`,
      priority: '',
      sentAt: '2026-11-01T10:00:00.000Z',
    });

    it('starts empty: no checkpoint, zero figures, no rows', async () => {
      const ks = await store.active();
      expect(await ks.checkpoint()).toBeNull();
      expect(await ks.main()).toEqual(emptyMain());
      expect(await ks.users({ membersOnly: false, sets: [], offset: 0, limit: 10 })).toEqual({ total: 0, rows: [] });
      expect(await ks.countries(5)).toEqual({ distinct: 0, top: [] });
      expect(await ks.chat(50)).toEqual({ total: 0, messages: [] });
      expect(await ks.posts()).toEqual([]);
      expect(await ks.userById('nobody')).toBeNull();
      expect(await ks.progress()).toEqual([]);
      expect(await ks.progressTail()).toEqual({ last: null, days: 0 });
      expect((await ks.snapshot([])).progressDay).toBeNull();
    });

    it('applies a batch with its checkpoint once; the same batch again is refused and changes nothing', async () => {
      const ks = await store.active();
      const batch = {
        expectedCheckpoint: null,
        checkpoint: '10/1',
        writes: [
          { op: 'main', main: { ...emptyMain(), sold: 3, members: 1 } },
          ...putUser(row(1, { passes: 3, country: 'Peru' })),
          { op: 'country', country: 'Peru', delta: 1 },
        ] satisfies ReadModelWrite[],
      };
      expect(await ks.apply(batch)).toBe('applied');
      expect(await ks.apply(batch)).toBe('stale');
      expect(await ks.checkpoint()).toBe('10/1');
      expect(await ks.countries(5)).toEqual({ distinct: 1, top: [{ country: 'Peru', users: 1 }] });
      expect((await ks.main()).sold).toBe(3);
      expect(await ks.apply({ expectedCheckpoint: '9/9', checkpoint: '11/1', writes: [] })).toBe('stale');
      expect(await ks.apply({ expectedCheckpoint: '10/1', checkpoint: '11/1', writes: [] })).toBe('applied');
      expect(await ks.checkpoint()).toBe('11/1');
    });

    it('pages users by passes, ties in registration order, members first, with global ranks', async () => {
      const ks = await store.active();
      const rows = [row(1, { passes: 5 }), row(2, { passes: 9 }), row(3, { passes: 5 }), row(4), row(5, { passes: 1 })];
      await ks.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: rows.flatMap((r) => putUser(r)) });

      const ranking = await ks.users({ membersOnly: true, sets: [], offset: 0, limit: 10 });
      expect(ranking.total).toBe(4);
      expect(ranking.rows.map((r) => [r.rank, r.row.userId])).toEqual([
        [1, 'u2'],
        [2, 'u1'],
        [3, 'u3'],
        [4, 'u5'],
      ]);
      const page2 = await ks.users({ membersOnly: true, sets: [], offset: 2, limit: 2 });
      expect(page2.rows.map((r) => r.row.userId)).toEqual(['u3', 'u5']);
      const registry = await ks.users({ membersOnly: false, sets: [], offset: 3, limit: 10 });
      expect(registry.total).toBe(5);
      expect(registry.rows.map((r) => [r.rank, r.row.userId])).toEqual([
        [4, 'u5'],
        [5, 'u4'],
      ]);
      expect(await ks.users({ membersOnly: true, sets: [], offset: 10, limit: 10 })).toEqual({ total: 4, rows: [] });
    });

    it('moves a user when their score changes and removes index entries', async () => {
      const ks = await store.active();
      await ks.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: [...putUser(row(1, { passes: 1 }), ['ix:ana']), ...putUser(row(2, { passes: 2 }))] });
      await ks.apply({
        expectedCheckpoint: '1/1',
        checkpoint: '2/1',
        writes: [
          ...putUser(row(1, { passes: 7, fullname: 'Bo' }), ['ix:bo']),
          { op: 'zrem', set: 'ix:ana', member: rankKey(1) },
        ],
      });
      const ranking = await ks.users({ membersOnly: true, sets: [], offset: 0, limit: 10 });
      expect(ranking.rows.map((r) => [r.row.userId, r.row.passes])).toEqual([
        ['u1', 7],
        ['u2', 2],
      ]);
      expect(await ks.users({ membersOnly: false, sets: ['ix:ana'], offset: 0, limit: 10 })).toEqual({ total: 0, rows: [] });
      expect((await ks.users({ membersOnly: false, sets: ['ix:bo'], offset: 0, limit: 10 })).rows[0]?.row.fullname).toBe('Bo');
      expect(await ks.userById('u1')).toMatchObject({ passes: 7, fullname: 'Bo' });
    });

    it('searches one index set or the intersection of several, in ranking order', async () => {
      const ks = await store.active();
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '1/1',
        writes: [
          ...putUser(row(1, { passes: 2 }), ['ix:ana', 'ix:peru']),
          ...putUser(row(2, { passes: 4 }), ['ix:ana', 'ix:chile']),
          ...putUser(row(3, { passes: 0 }), ['ix:ana', 'ix:peru']),
          ...putUser(row(4, { passes: 9 }), ['ix:peru']),
          ...putUser(row(5, { passes: 1 }), ['ix:ana', 'ix:peru']),
        ],
      });
      const ana = await ks.users({ membersOnly: true, sets: ['ix:ana'], offset: 0, limit: 10 });
      expect(ana.total).toBe(3);
      expect(ana.rows.map((r) => [r.rank, r.row.userId])).toEqual([
        [2, 'u2'],
        [3, 'u1'],
        [4, 'u5'],
      ]);
      const anaPeru = await ks.users({ membersOnly: true, sets: ['ix:ana', 'ix:peru'], offset: 0, limit: 10 });
      expect(anaPeru.total).toBe(2);
      expect(anaPeru.rows.map((r) => r.row.userId)).toEqual(['u1', 'u5']);
      const all = await ks.users({ membersOnly: false, sets: ['ix:peru', 'ix:ana'], offset: 1, limit: 1 });
      expect(all.total).toBe(3);
      expect(all.rows.map((r) => r.row.userId)).toEqual(['u5']);
      expect(await ks.users({ membersOnly: false, sets: ['ix:nobody', 'ix:ana'], offset: 0, limit: 10 })).toEqual({ total: 0, rows: [] });
    });

    it('searches three or four words through their smallest pair set, and a word with a date without one', async () => {
      const ks = await store.active();
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '1/1',
        writes: [
          ...putUser(row(1, { passes: 2 }), ['ix:ana', 'ix:maria', 'ix:peru', 'ix:01/11/2026']),
          ...putUser(row(2, { passes: 4 }), ['ix:ana', 'ix:maria', 'ix:chile', 'ix:01/11/2026']),
          ...putUser(row(3, { passes: 0 }), ['ix:ana', 'ix:maria', 'ix:peru', 'ix:02/11/2026']),
          ...putUser(row(4, { passes: 9 }), ['ix:ana', 'ix:peru', 'ix:01/11/2026']),
          ...putUser(row(5, { passes: 1 }), ['ix:maria', 'ix:peru', 'ix:01/11/2026']),
          ...putUser(row(6, { passes: 3 }), ['ix:ana', 'ix:maria', 'ix:peru', 'ix:01/11/2026']),
        ],
      });
      const find = (sets: Array<`ix:${string}`>, membersOnly = false) => ks.users({ membersOnly, sets, offset: 0, limit: 10 });
      const ids = async (sets: Array<`ix:${string}`>, membersOnly = false) => {
        const page = await find(sets, membersOnly);
        return [page.total, page.rows.map((r) => [r.rank, r.row.userId])];
      };
      expect(await ids(['ix:peru', 'ix:ana', 'ix:maria'])).toEqual([3, [[3, 'u6'], [4, 'u1'], [6, 'u3']]]);
      expect(await ids(['ix:peru', 'ix:ana', 'ix:maria'], true)).toEqual([2, [[3, 'u6'], [4, 'u1']]]);
      expect(await ids(['ix:peru', 'ix:ana', 'ix:maria', 'ix:01/11/2026'])).toEqual([2, [[3, 'u6'], [4, 'u1']]]);
      expect(await ids(['ix:ana', 'ix:01/11/2026'])).toEqual([4, [[1, 'u4'], [2, 'u2'], [3, 'u6'], [4, 'u1']]]);
      expect(await ids(['ix:chile', 'ix:peru'])).toEqual([0, []]);
      expect(await ids(['ix:chile', 'ix:peru', 'ix:ana'])).toEqual([0, []]);
    });

    it('finds a row too long to pair in multi-word searches, in order among the paired ones', async () => {
      const ks = await store.active();
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '1/1',
        writes: [
          ...putUser(row(1, { passes: 2 }), ['ix:ana', 'ix:peru']),
          ...putUser(row(2, { passes: 3 }), ['ix:ana', 'ix:peru', 'ix:lima'], true),
          ...putUser(row(3, { passes: 1 }), ['ix:ana', 'ix:peru', 'ix:lima']),
          ...putUser(row(4, { passes: 5 }), ['ix:bo', 'ix:peru']),
        ],
      });
      const ids = async (sets: Array<`ix:${string}`>) => {
        const page = await ks.users({ membersOnly: true, sets, offset: 0, limit: 10 });
        return [page.total, page.rows.map((r) => r.row.userId)];
      };
      expect(await ids(['ix:ana', 'ix:peru'])).toEqual([3, ['u2', 'u1', 'u3']]);
      expect(await ids(['ix:lima', 'ix:ana', 'ix:peru'])).toEqual([2, ['u2', 'u3']]);
      // The unpaired row does not match: the pair set answers alone.
      expect(await ids(['ix:bo', 'ix:peru'])).toEqual([1, ['u4']]);
    });

    it('finds rows by word prefixes, and registry rows by what their masked e-mail shows', async () => {
      const ks = await store.active();
      // Indexed as the projections index them (rowIndexSetList).
      const indexed = (r: UserRow): ReadModelWrite[] => [
        { op: 'user', row: r },
        ...['users', ...rowIndexSetList(r)].map((set) => ({ op: 'zadd' as const, set: set as 'users', member: r.key, score: r.passes > 0 ? -r.passes : 0 })),
      ];
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '1/1',
        writes: [
          ...indexed(row(1, { passes: 4, fullname: 'Janet Smith', country: 'Peru' })),
          ...indexed(row(2, { passes: 3, fullname: 'María López', country: 'Chile' })),
          ...indexed(row(3, { passes: 2, fullname: 'Marco Polo', country: 'Italy' })),
          // No card: the registry shows jan***@mail.com.
          ...indexed(row(4, { passes: 1, email: 'jan.doe@mail.com' })),
          ...indexed(row(5, { email: 'janice@mail.com' })),
          ...indexed(row(6, { passes: 1, fullname: 'Jana Ray', country: 'Peru' })),
          ...indexed(row(7, { fullname: 'Jan Li', country: 'Peru' })),
        ],
      });
      const find = async (q: string, registry: boolean, offset = 0, limit = 10, membersOnly = !registry) => {
        const { sets, registrySets } = parseQuery(q, registry);
        const page = await ks.users({ membersOnly, sets, ...(registrySets ? { registrySets } : {}), offset, limit });
        return [page.total, page.rows.map((r) => r.row.userId)];
      };
      expect(await find('jan', false)).toEqual([2, ['u1', 'u6']]);
      expect(await find('mar lo', false)).toEqual([1, ['u2']]);
      expect(await find('MARIA lópez', true)).toEqual([1, ['u2']]);
      expect(await find('ma', false)).toEqual([2, ['u2', 'u3']]);
      // The registry also finds rows shown by a masked e-mail, by the parts shown, in ranking order.
      const jan = ['u1', 'u4', 'u6', 'u5', 'u7'];
      expect(await find('jan', true)).toEqual([5, jan]);
      // Any page of that union, rows with words and rows shown by a mask interleaved by rank.
      for (let offset = 0; offset <= jan.length; offset++) {
        for (const limit of [1, 2, 3]) expect(await find('jan', true, offset, limit), `${offset} ${limit}`).toEqual([5, jan.slice(offset, offset + limit)]);
      }
      expect(await find('jan', true, 0, 10, true)).toEqual([3, ['u1', 'u4', 'u6']]);
      expect(await find('jan', true, 2, 10, true)).toEqual([3, ['u6']]);
      expect(await find('jan***@mail.com', true)).toEqual([2, ['u4', 'u5']]);
      expect(await find('mail jan', true)).toEqual([2, ['u4', 'u5']]);
      // Never in the public ranking, and never by the hidden part.
      expect(await find('mail', false)).toEqual([0, []]);
      expect(await find('doe', true)).toEqual([0, []]);
      expect(await find('janice', true)).toEqual([0, []]);
      // One letter matches one-letter words only.
      expect(await find('j', true)).toEqual([0, []]);
    });

    it('finds any part of a name, country, date or shown e-mail through the text index, in ranking order, as rows change', async () => {
      const ks = await store.active();
      // Written as the projections write them: the row, its score, its search text.
      const put = (r: UserRow): ReadModelWrite[] => [
        { op: 'user', row: r },
        { op: 'zadd', set: 'users', member: r.key, score: r.passes > 0 ? -r.passes : 0 },
        { op: 'searchText', key: r.key, text: searchText(r) },
      ];
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '1/1',
        writes: [
          ...put(row(1, { passes: 1, fullname: 'Desk User', country: 'Spain', createdAt: '2026-05-06T09:00:00.000Z' })),
          ...put(row(2, { passes: 3, fullname: 'María López', country: 'Peru', createdAt: '2026-12-06T10:00:00.000Z' })),
          ...put(row(3, { fullname: 'Omar Khan', country: 'India', createdAt: '2026-12-06T11:00:00.000Z' })),
          // No card: the registry shows des******@example.com.
          ...put(row(4, { email: 'desk.user@example.com', createdAt: '2026-12-06T12:00:00.000Z' })),
        ],
      });
      expect(await ks.prepareSearch()).toBe(true);
      const find = async (q: string, registry: boolean, offset = 0, limit = 10, membersOnly = !registry) => {
        const page = await ks.users({ membersOnly, sets: parseQuery(q, registry).sets, text: { terms: searchTerms(q), registry, posted: false }, offset, limit });
        return [page.total, page.rows.map((r) => `${r.rank}:${r.row.userId}`)];
      };
      expect(await find('esk', false)).toEqual([1, ['2:u1']]);
      expect(await find('AR', true)).toEqual([2, ['1:u2', '3:u3']]);
      expect(await find('12/2026', true)).toEqual([3, ['1:u2', '3:u3', '4:u4']]);
      expect(await find('06/12 ndi', true)).toEqual([1, ['3:u3']]);
      expect(await find('2026', true, 1, 2)).toEqual([4, ['2:u1', '3:u3']]);
      expect(await find('example', true)).toEqual([1, ['4:u4']]);
      expect(await find('example', false, 0, 10, false)).toEqual([0, []]);
      // A new name, a new score, an erasure: the next search sees each.
      await ks.apply({
        expectedCheckpoint: '1/1',
        checkpoint: '1/2',
        writes: [
          { op: 'searchText', key: rankKey(3), text: searchText(row(3, { fullname: 'Omar Deskovic', country: 'India', createdAt: '2026-12-06T11:00:00.000Z' })) },
          { op: 'zadd', set: 'users', member: rankKey(3), score: -5 },
          { op: 'zrem', set: 'users', member: rankKey(2) },
          { op: 'userRemove', userId: 'u2', key: rankKey(2), email: '' },
          { op: 'searchText', key: rankKey(2), text: null },
        ],
      });
      expect(await find('esk', false)).toEqual([2, ['1:u3', '2:u1']]);
      expect(await find('lopez', true)).toEqual([0, []]);
    });

    it('finds one user by whole e-mail, in the registry or (if a member) the ranking', async () => {
      const ks = await store.active();
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '1/1',
        writes: [
          ...putUser(row(1, { passes: 3 })),
          ...putUser(row(2)),
          { op: 'email', email: 'user1@example.com', member: rankKey(1) },
          { op: 'email', email: 'user2@example.com', member: rankKey(2) },
        ],
      });
      const find = (email: string, membersOnly: boolean, offset = 0) => ks.users({ membersOnly, sets: [], email, offset, limit: 10 });
      expect(await find('user2@example.com', false)).toEqual({ total: 1, rows: [{ rank: 2, row: row(2) }] });
      expect(await find('user2@example.com', true)).toEqual({ total: 0, rows: [] });
      expect(await find('user1@example.com', true)).toEqual({ total: 1, rows: [{ rank: 1, row: row(1, { passes: 3 }) }] });
      expect(await find('user1@example.com', true, 1)).toEqual({ total: 1, rows: [] });
      expect(await find('nobody@example.com', false)).toEqual({ total: 0, rows: [] });
      expect((await ks.dump()).emails).toEqual([
        ['user1@example.com', rankKey(1)],
        ['user2@example.com', rankKey(2)],
      ]);
    });

    it('counts countries, top by count then name, and forgets a country at zero', async () => {
      const ks = await store.active();
      const c = (country: string, delta: number): ReadModelWrite => ({ op: 'country', country, delta });
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '1/1',
        writes: [c('Peru', 1), c('Chile', 1), c('Peru', 1), c('Spain', 2), c('Angola', 2), c('Benin', 1), c('Cuba', 1), c('Chad', 1)],
      });
      expect(await ks.countries(5)).toEqual({
        distinct: 7,
        top: [
          { country: 'Angola', users: 2 },
          { country: 'Peru', users: 2 },
          { country: 'Spain', users: 2 },
          { country: 'Benin', users: 1 },
          { country: 'Chad', users: 1 },
        ],
      });
      await ks.apply({ expectedCheckpoint: '1/1', checkpoint: '2/1', writes: [c('Angola', -2), c('Chile', -1)] });
      const after = await ks.countries(5);
      expect(after.distinct).toBe(5);
      expect(after.top.map((t) => t.country)).toEqual(['Peru', 'Spain', 'Benin', 'Chad', 'Cuba']);
    });

    it(`keeps the last ${CHAT_HISTORY_LIMIT} chat messages in order, and clears them`, async () => {
      const ks = await store.active();
      const n = CHAT_HISTORY_LIMIT + 5;
      const writes: ReadModelWrite[] = [];
      for (let i = 1; i <= n; i++) writes.push({ op: 'chatPush', message: message(i) });
      writes.push({ op: 'main', main: { ...emptyMain(), globalMessages: n } });
      await ks.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes });
      const chat = await ks.chat(CHAT_HISTORY_LIMIT);
      expect(chat.total).toBe(n);
      expect(chat.messages).toHaveLength(CHAT_HISTORY_LIMIT);
      expect(chat.messages[0]!.id).toBe('m6');
      expect(chat.messages.at(-1)!.id).toBe(`m${n}`);
      expect((await ks.chat(2)).messages.map((m) => m.id)).toEqual([`m${n - 1}`, `m${n}`]);
      await ks.apply({
        expectedCheckpoint: '1/1',
        checkpoint: '2/1',
        writes: [{ op: 'chatClear' }, { op: 'chatPush', message: message(999) }, { op: 'main', main: { ...emptyMain(), globalMessages: 1 } }],
      });
      expect(await ks.chat(50)).toEqual({ total: 1, messages: [message(999)] });
    });

    it('gives a batch its snapshot: checkpoint, figures, posts and the rows of the users asked for', async () => {
      const ks = await store.active();
      const post: GlobalPostView = {
        user: { id: 'u1', fullname: 'Ana', country: 'Peru', image: null, priority: '' },
        message: 'hi',
        postedAt: '2026-11-01T10:00:00.000Z',
      };
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '5/2',
        writes: [...putUser(row(1)), ...putUser(row(2)), { op: 'posts', posts: [post] }, { op: 'main', main: { ...emptyMain(), userSeq: 2 } }],
      });
      const snap = await ks.snapshot(['u2', 'missing']);
      expect(snap.checkpoint).toBe('5/2');
      expect(snap.main.userSeq).toBe(2);
      expect(snap.posts).toEqual([post]);
      expect([...snap.users.keys()]).toEqual(['u2']);
      expect(snap.users.get('u2')).toEqual(row(2));
    });

    it('gives a batch of thousands of members every stored row asked for, and an empty one the figures alone', async () => {
      const ks = await store.active();
      const stored = Array.from({ length: 2_400 }, (_, i) => row(i + 1));
      await ks.apply({ expectedCheckpoint: null, checkpoint: '9/1', writes: stored.flatMap((r) => putUser(r)) });
      // Every third one asked for was never stored; the rest are spread over the whole range.
      const asked = Array.from({ length: 3_000 }, (_, i) => (i % 3 === 0 ? `nobody-${i}` : `u${(i * 7) % 2_400 + 1}`));
      const snap = await ks.snapshot(asked);
      const expected = new Set(asked.filter((id) => !id.startsWith('nobody')));
      expect(snap.users.size).toBe(expected.size);
      for (const id of expected) expect(snap.users.get(id)).toEqual(stored[Number(id.slice(1)) - 1]);
      const empty = await ks.snapshot([]);
      expect(empty).toMatchObject({ checkpoint: '9/1', posts: [] });
      expect(empty.users.size).toBe(0);
    });

    it('keeps the progress days oldest first, a day written again replaced, and gives a batch the last one', async () => {
      const ks = await store.active();
      const day = (date: string, members: number): ProgressDay => ({ date, passesTaken: members * 2, members, fundsRaised: members + 0.25, freePoints: 3, pointsBought: -100, chatMessages: 1 });
      await ks.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: [{ op: 'progressDay', day: day('2026-11-03', 1) }, { op: 'progressDay', day: day('2026-11-05', 2) }] });
      expect(await ks.progress()).toEqual([day('2026-11-03', 1), day('2026-11-05', 2)]);
      expect((await ks.snapshot([])).progressDay).toEqual(day('2026-11-05', 2));
      expect(await ks.progressTail()).toEqual({ last: day('2026-11-05', 2), days: 2 });
      // The last day again, then a new one: replaced, then added after it.
      await ks.apply({ expectedCheckpoint: '1/1', checkpoint: '2/1', writes: [{ op: 'progressDay', day: day('2026-11-05', 3) }, { op: 'progressDay', day: day('2026-12-01', 4) }] });
      expect(await ks.progress()).toEqual([day('2026-11-03', 1), day('2026-11-05', 3), day('2026-12-01', 4)]);
      expect((await ks.snapshot([])).progressDay).toEqual(day('2026-12-01', 4));
      expect(await ks.progressTail()).toEqual({ last: day('2026-12-01', 4), days: 3 });
      expect((await ks.dump()).progress).toEqual(await ks.progress());
      // Another keyspace has days of its own.
      expect(await store.keyspace('ks-other').progress()).toEqual([]);
      expect(await store.keyspace('ks-other').progressTail()).toEqual({ last: null, days: 0 });
    });

    it('switches readers to another keyspace in one step and drops the old one', async () => {
      const first = await store.active();
      await first.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: [{ op: 'main', main: { ...emptyMain(), sold: 1 } }] });
      const next = store.keyspace('ks-next');
      await next.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: [{ op: 'main', main: { ...emptyMain(), sold: 2 } }] });
      expect((await (await store.active()).main()).sold).toBe(1);
      await expect(store.drop(first.id)).rejects.toThrow(/active/);
      expect(await store.list()).toEqual([first.id, 'ks-next'].sort());
      await store.activate('ks-next');
      expect(await store.activeId()).toBe('ks-next');
      expect((await (await store.active()).main()).sold).toBe(2);
      await store.drop(first.id);
      expect(await store.list()).toEqual(['ks-next']);
      expect(await store.keyspace(first.id).checkpoint()).toBeNull();
      expect((await store.keyspace(first.id).main()).sold).toBe(0);
    });

    it('keeps a deferred search index out of searches until it is built in one pass, then marks it complete', async () => {
      const ks = await store.active();
      expect(await ks.indexState()).toBe('deferred');
      const ana = row(1, { passes: 1, fullname: 'Ana' });
      const bo = row(2, { fullname: 'Bo' });
      // A catch-up from empty stores rows and the ranking without their index sets.
      await ks.apply({ expectedCheckpoint: null, checkpoint: '2/2', writes: [{ op: 'indexState', state: 'deferred' }, ...putUser(ana), ...putUser(bo)] });
      expect(await ks.indexState()).toBe('deferred');
      expect(await store.outdated(ks.id)).toBe(false);
      const search = (sets: Array<`ix:${string}`>) => ks.users({ membersOnly: false, sets, offset: 0, limit: 10 });
      expect((await search(['ix:an'])).total).toBe(0);
      const stored: UserRow[] = [];
      for await (const page of ks.storedRows()) stored.push(...page);
      expect(stored.map((r) => r.userId).sort()).toEqual(['u1', 'u2']);
      // Built from the rows: many members per set, the checkpoint where it was.
      await ks.apply({
        expectedCheckpoint: '2/2',
        checkpoint: '2/2',
        writes: [
          { op: 'zaddMany', set: 'ix:an', entries: [[ana.key, -1]] },
          { op: 'zaddMany', set: 'ix:ab', entries: [[bo.key, 0], [ana.key, -1]] },
          { op: 'indexState', state: 'complete' },
        ],
      });
      expect(await ks.indexState()).toBe('complete');
      expect((await search(['ix:ab'])).rows.map((r) => [r.rank, r.row.userId])).toEqual([[1, 'u1'], [2, 'u2']]);
      // Dropped again (a build cut off is redone from the rows): every index set goes, the ranking stays.
      await ks.dropIndex();
      expect(Object.keys((await ks.dump()).sets)).toEqual(['users']);
    });

    it('calls a keyspace projected by older index code outdated, never an empty one', async () => {
      const ks = await store.active();
      expect(await store.outdated(ks.id)).toBe(false);
      await ks.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: [{ op: 'indexState', state: 'complete' }, ...putUser(row(1))] });
      expect([await ks.indexState(), await store.outdated(ks.id)]).toEqual(['complete', false]);
    });

    it('dumps a keyspace as plain data', async () => {
      const ks = await store.active();
      await ks.apply({
        expectedCheckpoint: null,
        checkpoint: '3/3',
        writes: [...putUser(row(2, { passes: 1 }), ['ix:bo']), ...putUser(row(1)), { op: 'country', country: 'Peru', delta: 1 }],
      });
      const dump = await ks.dump();
      expect(dump.checkpoint).toBe('3/3');
      expect(dump.rows.map((r) => r.userId)).toEqual(['u1', 'u2']);
      expect(dump.sets).toEqual({
        'ix:bo': [[rankKey(2), -1]],
        users: [
          [rankKey(2), -1],
          [rankKey(1), 0],
        ],
      });
      expect(dump.countries).toEqual([['Peru', 1]]);
    });
  });
}
