import { describe, expect, it } from 'vitest';
import { fundsRaised, positionToString, type DomainEvent } from '@pass/events';
import { createMemoryReadModels } from '../read-models/memory';
import { rankKey } from '../read-models/search';
import type { UserRow } from '../read-models/types';
import { projectInto } from './apply';
import { projectBatch, UNPROJECTED_TYPES } from './batch';
import type { PositionedEvent } from './types';
import { ANA, BOB, CY, positioned, recordedDay } from '../test-support/recorded-events';

const t = (minute: number) => new Date(Date.UTC(2026, 10, 3, 9, minute)).toISOString();
const image = (id: string) => ({ path: `${id}.webp`, public_id: id, url: `/uploads/${id}.webp` });
const [k1, k2, k3] = [rankKey(1), rankKey(2), rankKey(3)];

async function project(chunks: PositionedEvent[][]) {
  const store = createMemoryReadModels();
  const ks = await store.active();
  for (const chunk of chunks) await projectInto(ks, chunk);
  return ks;
}

const day = positioned(recordedDay);
const lastPosition = positionToString(day.at(-1)!.position);

describe('projections of a recorded day', () => {
  it('main data: a release the admin supply edit already counted gives nothing back (returned: 0)', async () => {
    const ks = await project([
      positioned([
        { type: 'PassSupplySet', data: { available: 10, setBy: 'admin-1', setAt: t(0) } },
        { type: 'PassesReserved', data: { reservationId: 'r1', userId: ANA, passes: 3, reservedAt: t(1) } },
        { type: 'PassSupplySet', data: { available: 4, setBy: 'admin-1', setAt: t(2) } },
        { type: 'PassReservationReleased', data: { reservationId: 'r1', userId: ANA, passes: 3, reason: 'claim failed', releasedAt: t(3), returned: 0 } },
      ]),
    ]);
    expect((await ks.main()).available).toBe(4);
  });

  it('main data: supply, taken, views, cpm, donations, start date, purchases, members, chat count', async () => {
    const ks = await project([day]);
    const main = await ks.main();
    expect(main).toEqual({
      available: 1000 - 1 - 25 - 2 + 2 - 1,
      sold: 27,
      views: 4, // 11 free points, reset to 3 by the admin, then one more
      cpm: 2.5,
      donations: 10.1,
      startDate: '01/11/2026',
      purchasesUsd: 5, // 5 + 1 - 1 refunded
      members: 3,
      globalMessages: 1,
      userSeq: 3,
    });
    expect(fundsRaised(main)).toBe(25.1); // 4 × 2.5 + 5 + 10.1
  });

  it('ranking: members by passes, ties by registration order', async () => {
    const ks = await project([day]);
    const page = await ks.users({ membersOnly: true, sets: [], offset: 0, limit: 50 });
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => [r.rank, r.row.userId, r.row.passes])).toEqual([
      [1, BOB, 25],
      [2, ANA, 1],
      [3, CY, 1],
    ]);
  });

  it('registry rows: balances, passes, purchases, priority and cards (a deleted post leaves the account)', async () => {
    const ks = await project([day]);
    const rows = (await ks.dump()).rows;
    const expected: UserRow[] = [
      {
        userId: ANA,
        key: k1,
        email: 'ana@example.com',
        priority: '',
        points: 0, // 10 + 11 free − 20 for a pass − 1 chat message
        passes: 1,
        buyed: 0,
        fullname: 'Ana María',
        country: 'Peru',
        link: `https://example.com/${ANA}`,
        image: image(ANA),
        message: 'Updated greeting',
        createdAt: t(2),
        updatedAt: t(33),
      },
      {
        userId: BOB,
        key: k2,
        email: 'bob@mail.org',
        priority: 'specialUser',
        points: 11, // 10 + 500 bought − 500 for 25 passes + 1 free
        passes: 25,
        buyed: 5,
        fullname: 'Bob Stone',
        country: 'Chile',
        link: `https://example.com/${BOB}`,
        image: image(BOB),
        message: 'Hello',
        createdAt: t(3),
        updatedAt: t(32),
      },
      {
        userId: CY,
        key: k3,
        email: 'cyrus@site.io',
        priority: 'normalUser',
        points: 10, // 10 + 100 − 20 − 1 − 79 taken back by the refund
        passes: 1,
        buyed: 0,
        fullname: '',
        country: '',
        link: '',
        image: null,
        message: '',
        createdAt: t(4),
        updatedAt: t(35),
      },
    ];
    expect(rows).toEqual(expected);
  });

  it('countries: members per country, top by count then name, distinct count', async () => {
    const ks = await project([day]);
    // Cy's post (Peru) was deleted, so Peru counts only Ana.
    expect(await ks.countries(5)).toEqual({
      distinct: 2,
      top: [
        { country: 'Chile', users: 1 },
        { country: 'Peru', users: 1 },
      ],
    });
  });

  it('search index: name and country word prefixes and date, pairs of two- and three-letter word starts, in ranking order; e-mails as a lookup', async () => {
    const ks = await project([day]);
    const { emails, sets } = await ks.dump();
    expect(emails).toEqual([
      ['ana@example.com', k1],
      ['bob@mail.org', k2],
      ['cyrus@site.io', k3],
    ]);
    const setsOf = (key: string) => Object.keys(sets).filter((name) => name !== 'users' && sets[name]!.some(([member]) => member === key)).sort();
    const ix = (...tokens: string[]) => tokens.map((t) => `ix:${t}`).sort();
    expect(setsOf(k1)).toEqual(ix('03/11/2026', 'an', 'ana', 'ma', 'mar', 'mari', 'maria', 'pe', 'per', 'peru', 'an+ma', 'an+pe', 'ma+pe', 'ana+mar', 'ana+per', 'mar+per', '/posted'));
    expect(setsOf(k2)).toEqual(ix('03/11/2026', 'bo', 'bob', 'st', 'sto', 'ston', 'stone', 'ch', 'chi', 'chil', 'chile', 'bo+ch', 'bo+st', 'ch+st', 'bob+chi', 'bob+sto', 'chi+sto', '/posted'));
    // Cy's deleted post took his words (and the posted set) with it; the registry shows him by his masked e-mail (cyr***@site.io).
    expect(setsOf(k3)).toEqual(ix('03/11/2026', '@cy', '@cyr', '@si', '@sit', '@site', '@io'));
    expect(sets['ix:03/11/2026']).toEqual([
      [k2, -25],
      [k1, -1],
      [k3, -1],
    ]);
    expect(sets.users).toEqual(sets['ix:03/11/2026']);
  });

  it('global chat: messages after the last clear, and their count', async () => {
    const ks = await project([day]);
    expect(await ks.chat(50)).toEqual({
      total: 1,
      messages: [{ id: 'm3', userId: BOB, nickname: 'Bob Stone', message: 'anyone?', priority: '', sentAt: t(29) }],
    });
  });

  it('global posts: newest first, one per member, deleted posts gone, priority kept current', async () => {
    const ks = await project([day]);
    expect(await ks.posts()).toEqual([
      {
        user: { id: ANA, fullname: 'Ana María', country: 'Peru', image: image(ANA), priority: '' },
        message: 'Updated greeting',
        postedAt: t(33),
      },
      {
        user: { id: BOB, fullname: 'Bob Stone', country: 'Chile', image: image(BOB), priority: 'specialUser' },
        message: 'Hello',
        postedAt: t(20),
      },
    ]);
  });

  it('gives the same read model whatever the batch sizes', async () => {
    const whole = await (await project([day])).dump();
    const single = await (await project(day.map((e) => [e]))).dump();
    const chunks: PositionedEvent[][] = [];
    for (let i = 0, size = 1; i < day.length; i += size, size = (size % 7) + 2) chunks.push(day.slice(i, i + size));
    const uneven = await (await project(chunks)).dump();
    expect(single).toEqual(whole);
    expect(uneven).toEqual(whole);
    expect(whole.checkpoint).toBe(lastPosition);
  });

  it('ignores re-delivered events: same batch again, or an overlapping one, changes nothing twice', async () => {
    const ks = await project([day]);
    const before = await ks.dump();
    const again = await projectInto(ks, day);
    expect(again).toEqual({ batch: null, live: [], applied: 0 });
    expect(await ks.dump()).toEqual(before);

    const half = await project([day.slice(0, 20)]);
    const overlap = await projectInto(half, day.slice(10));
    expect(overlap.applied).toBe(day.length - 20);
    expect(await half.dump()).toEqual(before);
  });

  it('announces what connected browsers must hear about', async () => {
    const { live } = projectBatch(day, (await (await createMemoryReadModels().active()).snapshot([])));
    expect(live.map((n) => n.kind)).toEqual([
      'mainData',
      'globalMember',
      'globalMember',
      'globalMember',
      'chatMessage',
      'chatMessage',
      'chatCleared',
      'chatMessage',
      'globalMessage',
      'progress',
    ]);
    const quiet = projectBatch(positioned([{ type: 'EmailReserved', data: { email: 'x@y.io', userId: 'u9', reservedAt: t(1) } }]), {
      checkpoint: null,
      main: (await (await createMemoryReadModels().active()).main()),
      users: new Map(),
      posts: [],
      progressDay: null,
    });
    expect(quiet.live).toEqual([]);
    // Nothing but what every first batch of a keyspace records: its index is kept from the start.
    expect(quiet.batch?.writes).toEqual([{ op: 'indexState', state: 'complete' }]);
  });
});

describe('event types the projector leaves sealed', () => {
  it('an e-mail reservation projects the same whether its e-mail is sealed or in clear; the types read models show are decrypted', async () => {
    const withEmail = (email: string): DomainEvent[] => [...recordedDay, { type: 'EmailReserved', data: { email, userId: ANA, reservedAt: '2026-01-02T00:00:00.000Z' } }];
    const project = async (events: DomainEvent[]) => {
      const keyspace = await createMemoryReadModels().active();
      return (await projectInto(keyspace, positioned(events))).batch?.writes;
    };
    expect(UNPROJECTED_TYPES).toContain('EmailReserved');
    expect(await project(withEmail('pd1:c2VhbGVk'))).toEqual(await project(withEmail('ana@example.com')));
    for (const shown of ['UserRegistered', 'CertificatePosted', 'CertificateUpdated', 'ChatMessageSent', 'MemberErased'] as const) {
      expect(UNPROJECTED_TYPES).not.toContain(shown);
    }
  });
});
