import { describe, expect, it } from 'vitest';
import { fundsRaised, type DomainEvent, type ProgressDay } from '@pass/events';
import { createMemoryReadModels } from '../read-models/memory';
import { projectInto } from './apply';
import { positioned } from '../test-support/recorded-events';

// Given/when/then specs of the progress read model (projections/progress.ts): what each UTC day
// holds at its end, as GET /api/progress lists it.

const ANA = 'u-ana';
const BOB = 'u-bob';
const on = (date: string, time = '12:00:00') => `${date}T${time}.000Z`;

const joined = (userId: string, at: string): DomainEvent => ({ type: 'UserRegistered', data: { userId, email: `${userId}@example.com`, passwordHash: 'h', points: 20, priority: '', registeredAt: at } });
const freePoint = (userId: string, at: string): DomainEvent => ({ type: 'FreePointAwarded', data: { userId, points: 1, awardedAt: at } });
const claim = (userId: string, passes: number, at: string): DomainEvent => ({ type: 'PassesClaimed', data: { userId, reservationId: `r-${userId}-${at}`, passes, pointsSpent: passes * 20, claimedAt: at } });
const bought = (userId: string, usd: number, at: string): DomainEvent => ({
  type: 'PointsPurchased',
  data: { userId, provider: 'simulated', orderId: `o-${userId}`, captureId: `c-${userId}`, amountUsd: usd, points: usd * 100, purchasedAt: at },
});
const refunded = (userId: string, usd: number, at: string): DomainEvent => ({
  type: 'PurchaseReversed',
  data: { userId, captureId: `c-${userId}`, reason: 'refunded', amountUsd: usd, points: usd * 100, reversedAt: at },
});
const chat = (userId: string, id: string, at: string): DomainEvent => ({
  type: 'ChatMessageSent',
  data: { userId, messageId: id, nickname: userId, message: 'hi', priority: '', pointsSpent: 1, sentAt: at },
});
const mainData = (cpm: number, donations: number, at: string): DomainEvent => ({ type: 'MainDataEdited', data: { cpm, donations, startDate: '01/11/2026', editedBy: 'admin-1', editedAt: at } });
const erased = (userId: string, at: string): DomainEvent => ({ type: 'MemberErased', data: { userId, requestedBy: 'member', erasedAt: at } });

/** Projects the events in batches of `size` (all in one by default) and answers the stored days. */
async function progressAfter(events: DomainEvent[], size = events.length) {
  const ks = await createMemoryReadModels().active();
  const all = positioned(events);
  const live = [];
  for (let i = 0; i < all.length; i += size) live.push(...(await projectInto(ks, all.slice(i, i + size))).live);
  return { days: await ks.progress(), live, main: await ks.main() };
}

const day = (date: string, figures: Partial<ProgressDay>): ProgressDay => ({
  date,
  passesTaken: 0,
  members: 0,
  fundsRaised: 0,
  freePoints: 0,
  pointsBought: 0,
  chatMessages: 0,
  ...figures,
});

describe('progress toward the goal, per UTC day', () => {
  it('given activity either side of midnight UTC, when projected, then each day counts its own and carries the totals', async () => {
    const events = [
      mainData(2, 10, on('2026-11-03', '08:00:00')),
      joined(ANA, on('2026-11-03')),
      freePoint(ANA, on('2026-11-03', '23:59:59')),
      claim(ANA, 1, on('2026-11-03', '23:59:59')),
      chat(ANA, 'm1', on('2026-11-03', '23:59:59')),
      freePoint(ANA, on('2026-11-04', '00:00:00')),
      freePoint(ANA, on('2026-11-04', '00:00:01')),
      bought(ANA, 5, on('2026-11-04', '10:00:00')),
    ];
    const expected = [
      day('2026-11-03', { passesTaken: 1, members: 1, fundsRaised: 1 * 2 + 10, freePoints: 1, chatMessages: 1 }),
      day('2026-11-04', { passesTaken: 1, members: 1, fundsRaised: 3 * 2 + 10 + 5, freePoints: 2, pointsBought: 500 }),
    ];
    const oneBatch = await progressAfter(events);
    expect(oneBatch.days).toEqual(expected);
    // Whatever the batches: one event each gives the same days.
    expect((await progressAfter(events, 1)).days).toEqual(expected);
    // The last day's totals are the figures as they stand.
    expect(oneBatch.days.at(-1)!.fundsRaised).toBe(fundsRaised(oneBatch.main));
    expect(oneBatch.days.at(-1)!.members).toBe(oneBatch.main.members);
  });

  it('given an admin edit of cpm mid-day, when projected, then that day ends with the new cpm over every view and the day before keeps the old one', async () => {
    const { days } = await progressAfter([
      mainData(2, 100, on('2026-11-03', '00:10:00')),
      joined(ANA, on('2026-11-03')),
      ...Array.from({ length: 10 }, (_, i) => freePoint(ANA, on('2026-11-03', `13:0${i}:00`))),
      ...Array.from({ length: 5 }, (_, i) => freePoint(ANA, on('2026-11-04', `09:0${i}:00`))),
      mainData(3, 50, on('2026-11-04', '12:00:00')),
      ...Array.from({ length: 5 }, (_, i) => freePoint(ANA, on('2026-11-04', `15:0${i}:00`))),
    ]);
    expect(days).toEqual([
      day('2026-11-03', { fundsRaised: 10 * 2 + 100, freePoints: 10 }),
      // The formula as the kernel writes it, with the values in force at the day's end.
      day('2026-11-04', { fundsRaised: fundsRaised({ views: 20, cpm: 3, purchasesUsd: 0, donations: 50 }), freePoints: 10 }),
    ]);
  });

  it('given a member erased on a later day, when projected, then members drop on that day only and passes taken stay', async () => {
    const events = [
      joined(ANA, on('2026-11-03')),
      joined(BOB, on('2026-11-03')),
      claim(ANA, 2, on('2026-11-03', '13:00:00')),
      claim(ANA, 1, on('2026-11-03', '14:00:00')),
      claim(BOB, 1, on('2026-11-03', '15:00:00')),
      erased(ANA, on('2026-11-05')),
      // A second erasure of the same member (a redelivery) and a non-member's change nothing.
      erased(ANA, on('2026-11-05', '13:00:00')),
      joined('u-cy', on('2026-11-05')),
      erased('u-cy', on('2026-11-05', '14:00:00')),
    ];
    const expected = [day('2026-11-03', { passesTaken: 4, members: 2 }), day('2026-11-05', { passesTaken: 4, members: 1 })];
    const { days, main } = await progressAfter(events);
    expect(days).toEqual(expected);
    expect(main.members).toBe(1);
    expect((await progressAfter(events, 2)).days).toEqual(expected);
  });

  it('given a member who claims and is erased in one batch, when projected, then the day counts them neither way', async () => {
    const { days } = await progressAfter([joined(ANA, on('2026-11-03')), claim(ANA, 1, on('2026-11-03', '13:00:00')), erased(ANA, on('2026-11-03', '14:00:00'))]);
    expect(days).toEqual([day('2026-11-03', { passesTaken: 1, members: 0 })]);
  });

  it('given a refund on a later day, when projected, then that day counts the points taken back and funds fall; the day of the purchase keeps its figures', async () => {
    const { days } = await progressAfter([
      mainData(1, 0, on('2026-11-03', '00:00:00')),
      joined(ANA, on('2026-11-03')),
      bought(ANA, 5, on('2026-11-03', '13:00:00')),
      bought(BOB, 2, on('2026-11-03', '14:00:00')),
      refunded(ANA, 5, on('2026-11-04', '09:00:00')),
    ]);
    expect(days).toEqual([day('2026-11-03', { fundsRaised: 7, pointsBought: 700 }), day('2026-11-04', { fundsRaised: 2, pointsBought: -500 })]);
  });

  it('given an event timed before the last day counted, when projected, then it counts on that last day (days never reopen)', async () => {
    const { days } = await progressAfter([joined(ANA, on('2026-11-04')), freePoint(ANA, on('2026-11-04')), freePoint(ANA, on('2026-11-03', '23:59:59'))]);
    expect(days).toEqual([day('2026-11-04', { freePoints: 2 })]);
  });

  it('given a batch that changes the current day, when stored, then browsers hear that day; a batch that changes no figure says nothing', async () => {
    const ks = await createMemoryReadModels().active();
    const first = await projectInto(ks, positioned([joined(ANA, on('2026-11-03')), freePoint(ANA, on('2026-11-03'))]));
    expect(first.live.filter((n) => n.kind === 'progress')).toEqual([{ kind: 'progress', day: day('2026-11-03', { freePoints: 1 }) }]);
    const quiet = await projectInto(ks, positioned([joined(BOB, on('2026-11-03', '13:00:00'))], 3));
    expect(quiet.live.filter((n) => n.kind === 'progress')).toEqual([]);
    // An erasure of a non-member opens the day but changes nothing in it: nothing written, nothing heard.
    const noChange = await projectInto(ks, positioned([erased(BOB, on('2026-11-03', '14:00:00'))], 4));
    expect(noChange.batch!.writes.filter((w) => w.op === 'progressDay')).toEqual([]);
    expect(noChange.live.filter((n) => n.kind === 'progress')).toEqual([]);
  });
});
