import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextUtcDay, type DomainEvent, type ProgressView } from '@pass/events';
import { createMemoryReadModels } from '@pass/projector';
import { appendEvents } from '@pass/projector/test-support';
import { startRecordedReadSide, type ReadSide } from '../test-support/read-side';
import { versionedBody } from './versioned-body';

const at = '2026-11-04T10:00:00.000Z';
/** A new member (a pass, a card) from a country nobody else is from. */
const joinsFromKenya = (userId: string, when = at): DomainEvent[] => [
  { type: 'UserRegistered', data: { userId, email: `${userId}@example.com`, passwordHash: 'h', points: 20, priority: '', registeredAt: when } },
  { type: 'PassesReserved', data: { reservationId: `r-${userId}`, userId, passes: 1, reservedAt: when } },
  { type: 'PassesClaimed', data: { userId, reservationId: `r-${userId}`, passes: 1, pointsSpent: 20, claimedAt: when } },
  { type: 'PassReservationConfirmed', data: { reservationId: `r-${userId}`, userId, passes: 1, confirmedAt: when } },
  {
    type: 'CertificatePosted',
    data: {
      userId,
      fullname: 'Wanjiru',
      country: 'Kenya',
      email: `${userId}@example.com`,
      link: '',
      image: { path: `${userId}.webp`, public_id: userId, url: `/uploads/${userId}.webp` },
      message: 'Jambo',
      postedAt: when,
    },
  },
];

describe('the shared bodies of /api/countries, /api/main-data and /api/progress', () => {
  let side: ReadSide;

  beforeAll(async () => {
    side = await startRecordedReadSide();
  });
  afterAll(async () => {
    await side.close();
  });

  it('show a newly projected member on the next request', async () => {
    const c = side.client();
    const before = await c.request('GET', '/api/countries');
    expect(before.body).toEqual({ distinct: 2, top: [{ country: 'Chile', users: 1 }, { country: 'Peru', users: 1 }] });
    expect(before.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await c.request('GET', '/api/main-data')).body.members).toBe(3);

    await appendEvents(side.store, joinsFromKenya('u-wanjiru'));
    await side.projector.settled();

    expect((await c.request('GET', '/api/countries')).body).toEqual({
      distinct: 3,
      top: [{ country: 'Chile', users: 1 }, { country: 'Kenya', users: 1 }, { country: 'Peru', users: 1 }],
    });
    expect((await c.request('GET', '/api/main-data')).body.members).toBe(4);
  });

  it('give the progress per UTC day, quiet days filled, the current day moving with the next member', async () => {
    const c = side.client();
    // The command API's start-up records the site's start today, before the recorded (earlier)
    // events are appended: those count on that last day (an event never reopens an earlier day).
    const before = await c.request('GET', '/api/progress');
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const today = { date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) as string, passesTaken: 28, members: 4, fundsRaised: 25.1, freePoints: 12, pointsBought: 500 + 100 - 79, chatMessages: 3 };
    expect(before.body).toEqual({ goal: { passes: 1_000_000, days: 365 }, startDate: '01/11/2026', days: [today] });
    // Nothing projected since: the very same body.
    expect((await c.request('GET', '/api/progress')).text).toBe(before.text);

    const day0 = (before.body as ProgressView).days[0]!;
    const day1 = nextUtcDay(day0.date);
    const day2 = nextUtcDay(day1);
    await appendEvents(side.store, joinsFromKenya('u-akinyi', `${day2}T23:59:59.000Z`));
    await side.projector.settled();

    const after = (await c.request('GET', '/api/progress')).body as ProgressView;
    expect(after.days).toEqual([
      day0,
      { ...day0, date: day1, freePoints: 0, pointsBought: 0, chatMessages: 0 },
      { ...day0, date: day2, passesTaken: 29, members: 5, freePoints: 0, pointsBought: 0, chatMessages: 0 },
    ]);
  });
});

describe('versionedBody', () => {
  it('rebuilds only when the checkpoint moves or another keyspace becomes active', async () => {
    const store = createMemoryReadModels();
    const ks = await store.active();
    let builds = 0;
    const body = versionedBody(async (k) => ({ builds: ++builds, members: (await k.main()).members }));
    const write = (target: typeof ks, checkpoint: string, expected: string | null) =>
      target.apply({ expectedCheckpoint: expected, checkpoint, writes: [{ op: 'country', country: 'Peru', delta: 1 }] });

    await write(ks, '1/0', null);
    const first = await body(ks);
    expect(JSON.parse(first.bytes.toString())).toMatchObject({ builds: 1 });
    // Unchanged read models: the very same bytes, serialised once (a lane keys its ETag on them).
    expect(await body(ks)).toBe(first);

    await write(ks, '2/0', '1/0');
    expect(JSON.parse((await body(ks)).bytes.toString())).toMatchObject({ builds: 2 });

    // A rebuilt keyspace can reach the same checkpoint as the old one: still a different state.
    const rebuilt = store.keyspace('ks-rebuilt');
    await write(rebuilt, '1/0', null);
    await write(rebuilt, '2/0', '1/0');
    expect(JSON.parse((await body(rebuilt)).bytes.toString())).toMatchObject({ builds: 3 });
  });
});
