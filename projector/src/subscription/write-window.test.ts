import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '@pass/events';
import { projectInto } from '../projections/apply';
import type { PositionedEvent, ProjectedBatch } from '../projections/types';
import { createMemoryReadModels } from '../read-models/memory';
import type { ReadModelWrite } from '../read-models/types';
import { chattySite } from '../test-support/chat-site';
import { generateEvents } from '../test-support/generate-events';
import { positioned } from '../test-support/recorded-events';
import { CatchUpMirror } from './catch-up-mirror';
import { WriteWindow } from './write-window';

/**
 * A generated site whose members are active at the same time (their events interleave, as on
 * the site), with two members erased part-way (their rows, sets and chat lines leave).
 */
function siteWithErasures(): PositionedEvent[] {
  const queues = new Map<string, DomainEvent[]>();
  for (const event of generateEvents({ users: 120, seed: 11 })) {
    const owner = (event.data as { userId?: string }).userId ?? 'site';
    queues.set(owner, [...(queues.get(owner) ?? []), event]);
  }
  const events: DomainEvent[] = [];
  while (queues.size > 0) {
    for (const [owner, queue] of queues) {
      events.push(queue.shift()!);
      if (queue.length === 0) queues.delete(owner);
    }
  }
  const ids = events.filter((e) => e.type === 'UserRegistered').map((e) => (e.data as { userId: string }).userId);
  const erase = (userId: string): DomainEvent => ({ type: 'MemberErased', data: { userId, requestedBy: 'member', erasedAt: '2026-11-03T12:00:00.000Z' } });
  events.splice(Math.floor(events.length / 3), 0, erase(ids[3]!));
  events.splice(Math.floor((events.length * 2) / 3), 0, erase(ids[40]!));
  return positioned(events);
}

const batchesOf = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The events stored batch by batch, and a window at a time, each into a memory keyspace. */
async function storeBothWays(events: PositionedEvent[], batchSize: number, windowEvents: number) {
  const oneByOne = await createMemoryReadModels().active();
  const mirrorA = new CatchUpMirror(oneByOne, null, 'deferred');
  const writesOneByOne: ReadModelWrite[] = [];
  for (const batch of batchesOf(events, batchSize)) {
    const projected = await mirrorA.project(batch);
    writesOneByOne.push(...(projected.batch?.writes ?? []));
    if (projected.batch) expect(await oneByOne.apply(projected.batch)).toBe('applied');
  }

  const windowed = await createMemoryReadModels().active();
  const mirrorB = new CatchUpMirror(windowed, null, 'deferred');
  const window = new WriteWindow(windowEvents, 10_000);
  const writesWindowed: ReadModelWrite[] = [];
  let applies = 0;
  const store = async () => {
    const taken = window.take();
    // As the pipeline does: a memory keyspace stores the window now, so the mirror forgets its rows.
    mirrorB.windowStored();
    if (!taken?.projected.batch) return;
    writesWindowed.push(...taken.projected.batch.writes);
    applies++;
    expect(await windowed.apply(taken.projected.batch)).toBe('applied');
  };
  for (const batch of batchesOf(events, batchSize)) {
    window.add(await mirrorB.project(batch), batch, 0);
    if (window.full) await store();
  }
  await store();
  await mirrorA.buildIndex();
  await mirrorB.buildIndex();
  const direct = await createMemoryReadModels().active();
  await projectInto(direct, events);
  return { oneByOne: await oneByOne.dump(), windowed: await windowed.dump(), direct: await direct.dump(), writesOneByOne, writesWindowed, applies };
}

const countOf = (writes: ReadModelWrite[], op: ReadModelWrite['op']) => writes.filter((w) => w.op === op).length;

describe('catch-up batches stored a window at a time', () => {
  it('leave the same read models as the batches stored one by one, with fewer writes', async () => {
    const events = siteWithErasures();
    const r = await storeBothWays(events, 25, 400);
    expect(r.windowed).toEqual(r.oneByOne);
    expect(r.windowed).toEqual(r.direct);
    expect(r.applies).toBe(Math.ceil(events.length / 400));
    // Counted before the search index is built: the catch-up's own writes.
    expect(r.writesWindowed.length).toBeLessThan(r.writesOneByOne.length * 0.7);
  });

  it('send a chat line only while the history still holds it, and each country once with its changes summed', async () => {
    const { register, say, card, claim, erase, clear } = chattySite();
    const events = positioned([
      ...['a', 'b', 'c', 'd'].map(register),
      ...['a', 'b', 'd'].map(claim),
      // 250 lines: the history keeps the last 100, exactly.
      ...say('a', 250),
      // Between a line and its 100th follower, some followers leave with their member: that
      // line is still in the history afterwards.
      ...say('a', 100),
      ...say('b', 30),
      ...say('c', 20),
      erase('c'),
      ...say('a', 50),
      // A clear takes every line before it; the lines after it stay.
      ...say('d', 120),
      clear(),
      ...say('b', 7),
      // Members' countries move, one back and forth, in batches of their own.
      card('a', 'Peru'),
      card('a', 'Chile'),
      card('a', 'Peru'),
      card('b', 'Chile'),
      card('d', 'Spain'),
      card('d', 'Peru'),
    ]);
    const r = await storeBothWays(events, 3, 10_000);

    expect(r.applies).toBe(1);
    expect(r.windowed).toEqual(r.oneByOne);
    expect(r.windowed).toEqual(r.direct);
    expect(r.windowed.chat.map((m) => m.message)).toEqual(['line 571', 'line 572', 'line 573', 'line 574', 'line 575', 'line 576', 'line 577']);
    expect(r.windowed.countries).toEqual([['Chile', 1], ['Peru', 2]]);

    // Cut before the last member's 120 lines: the history then holds 50 lines written before the
    // erasure, the first of them (line 331) 119 lines before the last, as sent one by one.
    const cut = await storeBothWays(positioned(events.slice(0, -134).map((e) => e.event)), 50, 10_000);
    expect(cut.windowed).toEqual(cut.oneByOne);
    expect(cut.windowed.chat).toHaveLength(100);
    expect(cut.windowed.chat[0]!.message).toBe('line 331');
    expect(cut.windowed.chat.some((m) => m.nickname === 'c')).toBe(false);

    // Sent: the 100 lines the history held at the erasure, and the 7 after the clear.
    expect(countOf(r.writesWindowed, 'chatPush')).toBe(107);
    expect(countOf(r.writesWindowed, 'country')).toBeLessThan(countOf(r.writesOneByOne, 'country'));
  });

  it('keeps the last value set, and a removal between two sets in its place', () => {
    const window = new WriteWindow(1_000, 1_000);
    const batch = (checkpoint: string, expected: string | null, writes: ReadModelWrite[]): ProjectedBatch => ({ batch: { expectedCheckpoint: expected, checkpoint, writes }, live: [], applied: 1 });
    const at = (n: number): PositionedEvent[] => positioned([{ type: 'AdViewsReset', data: { resetAt: '2026-01-01T00:00:00.000Z' } } as DomainEvent], n);
    window.add(batch('1/0', null, [{ op: 'zadd', set: 'users', member: 'a', score: 0 }, { op: 'country', country: 'ES', delta: 1 }]), at(1), 0);
    window.add(batch('2/0', '1/0', [{ op: 'zadd', set: 'users', member: 'a', score: -1 }, { op: 'zrem', set: 'ix:an', member: 'a' }]), at(2), 0);
    window.add(batch('3/0', '2/0', [{ op: 'zadd', set: 'ix:an', member: 'a', score: -1 }, { op: 'zadd', set: 'users', member: 'a', score: -2 }]), at(3), 0);
    const taken = window.take()!;
    expect(taken.projected.batch).toEqual({
      expectedCheckpoint: null,
      checkpoint: '3/0',
      writes: [
        { op: 'country', country: 'ES', delta: 1 },
        { op: 'zrem', set: 'ix:an', member: 'a' },
        { op: 'zadd', set: 'ix:an', member: 'a', score: -1 },
        { op: 'zadd', set: 'users', member: 'a', score: -2 },
      ],
    });
    expect(taken.projected.applied).toBe(3);
    expect(taken.last[0]!.position.commit).toBe(3n);
    expect(window.empty).toBe(true);
    expect(window.take()).toBeUndefined();
  });

  it('is full at its event or write bound', () => {
    const byEvents = new WriteWindow(2, 1_000);
    const one: ProjectedBatch = { batch: null, live: [], applied: 0 };
    const ev = positioned([{ type: 'AdViewsReset', data: { resetAt: '2026-01-01T00:00:00.000Z' } } as DomainEvent]);
    byEvents.add(one, ev, 0);
    expect(byEvents.full).toBe(false);
    byEvents.add(one, ev, 0);
    expect(byEvents.full).toBe(true);
    const byWrites = new WriteWindow(1_000, 2);
    byWrites.add({ batch: { expectedCheckpoint: null, checkpoint: '1/0', writes: [{ op: 'country', country: 'ES', delta: 1 }, { op: 'country', country: 'FR', delta: 1 }] }, live: [], applied: 1 }, ev, 0);
    expect(byWrites.full).toBe(true);
  });
});
