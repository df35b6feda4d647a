import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '@pass/events';
import { projectInto } from '../projections/apply';
import type { PositionedEvent, ProjectedBatch } from '../projections/batch';
import { createMemoryReadModels } from '../read-models/memory';
import type { ReadModelWrite } from '../read-models/types';
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

describe('catch-up batches stored a window at a time', () => {
  it('leave the same read models as the batches stored one by one, with fewer writes', async () => {
    const events = siteWithErasures();
    const oneByOne = await createMemoryReadModels().active();
    const mirrorA = new CatchUpMirror(oneByOne, null, 'deferred');
    let writesOneByOne = 0;
    for (const batch of batchesOf(events, 25)) {
      const projected = await mirrorA.project(batch);
      writesOneByOne += projected.batch?.writes.length ?? 0;
      if (projected.batch) expect(await oneByOne.apply(projected.batch)).toBe('applied');
    }

    const windowed = await createMemoryReadModels().active();
    const mirrorB = new CatchUpMirror(windowed, null, 'deferred');
    const window = new WriteWindow(400, 10_000);
    let writesWindowed = 0;
    let applies = 0;
    const store = async () => {
      const taken = window.take();
      // As the pipeline does: a memory keyspace stores the window now, so the mirror forgets its rows.
      mirrorB.windowStored();
      if (!taken?.projected.batch) return;
      writesWindowed += taken.projected.batch.writes.length;
      applies++;
      expect(await windowed.apply(taken.projected.batch)).toBe('applied');
    };
    for (const batch of batchesOf(events, 25)) {
      window.add(await mirrorB.project(batch), batch, 0);
      if (window.full) await store();
    }
    await store();
    // Counted before the search index is built: the catch-up's own writes.
    const counted = { writesOneByOne, writesWindowed };
    await mirrorA.buildIndex();
    await mirrorB.buildIndex();

    expect(await windowed.dump()).toEqual(await oneByOne.dump());
    const direct = await createMemoryReadModels().active();
    await projectInto(direct, events);
    expect(await windowed.dump()).toEqual(await direct.dump());
    expect(applies).toBe(Math.ceil(events.length / 400));
    expect(counted.writesWindowed).toBeLessThan(counted.writesOneByOne * 0.7);
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
