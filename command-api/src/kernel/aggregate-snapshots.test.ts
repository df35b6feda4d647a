import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streams, type EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { poolDecider } from '../passes-pool/decider';
import type { PoolState } from '../passes-pool/state';
import { FileAggregateSnapshots } from './aggregate-snapshots';
import { CommandHandler } from './command-handler';

const logger = pino({ level: 'silent' });
const at = '2026-05-01T10:00:00.000Z';
const event = (type: string, data: object) => ({ id: randomUUID(), type, data, metadata: { schemaVersion: 1 } });

/** The pool after a supply of 10,000 and `claims` confirmed claims of one pass, plus one still pending. */
async function seedPool(store: EventStore, claims: number): Promise<void> {
  const batch = [event('PassSupplySet', { available: 10_000, setBy: 'admin-1', setAt: at })];
  for (let i = 0; i < claims; i++) {
    batch.push(event('PassesReserved', { reservationId: `r-${i}`, userId: `u-${i}`, passes: 1, reservedAt: at }));
    batch.push(event('PassReservationConfirmed', { reservationId: `r-${i}`, userId: `u-${i}`, passes: 1, confirmedAt: at }));
  }
  batch.push(event('PassesReserved', { reservationId: 'r-open', userId: 'u-open', passes: 3, reservedAt: at }));
  for (let i = 0; i < batch.length; i += 500) await store.append(streams.passesPool, batch.slice(i, i + 500));
}

const summary = (state: PoolState) => ({ available: state.available, supplySet: state.supplySet, pending: [...state.pending.keys()] });

describe('aggregate snapshots (the passes-pool stream at a million members)', () => {
  let store: EventStore;
  let dir: string;
  beforeAll(async () => {
    store = await openPgliteEventStore();
    dir = mkdtempSync(join(tmpdir(), 'pass-aggregate-snapshots-'));
    await seedPool(store, 700); // 1,402 events
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const replayed = async () => summary((await new CommandHandler({ eventStore: store, logger }).load(poolDecider, streams.passesPool)).state);

  it('a long stream is snapshotted once loaded, and a new process loads the snapshot instead of replaying', async () => {
    const snapshots = new FileAggregateSnapshots(dir);
    const first = new CommandHandler({ eventStore: store, logger, snapshots });
    const loaded = await first.load(poolDecider, streams.passesPool);
    expect(summary(loaded.state)).toEqual({ available: 10_000 - 703, supplySet: true, pending: ['r-open'] });
    await expect.poll(() => existsSync(join(dir, 'passes-pool.json'))).toBe(true);
    const saved = (await snapshots.load(streams.passesPool))!;
    expect(saved.revision).toBe(loaded.revision);

    // Proof the next process starts from the snapshot: one that says 42 passes are available is believed.
    await snapshots.save(streams.passesPool, { ...saved, data: { ...(saved.data as object), available: 42 } });
    await store.append(streams.passesPool, [event('PassesReserved', { reservationId: 'r-late', userId: 'u-late', passes: 2, reservedAt: at })]);
    const next = await new CommandHandler({ eventStore: store, logger, snapshots }).load(poolDecider, streams.passesPool);
    expect(summary(next.state)).toEqual({ available: 40, supplySet: true, pending: ['r-open', 'r-late'] });
    expect(next.revision).toBe(loaded.revision + 1);
    await snapshots.save(streams.passesPool, saved);
  });

  it('a snapshot from another event store, or of another state shape, is ignored and the stream replayed', async () => {
    const snapshots = new FileAggregateSnapshots(dir);
    const want = await replayed();
    const [last] = await store.readStream(streams.passesPool, { direction: 'backwards', maxCount: 1 });
    // A handler that ignored a snapshot saves a good one in the background: wait for it each time.
    const goodAgain = () => expect.poll(async () => (await snapshots.load(streams.passesPool))?.eventId).toBe(last!.id);
    const load = async () => summary((await new CommandHandler({ eventStore: store, logger, snapshots }).load(poolDecider, streams.passesPool)).state);

    await snapshots.save(streams.passesPool, { revision: last!.revision, eventId: randomUUID(), version: 1, data: { available: 1, supplySet: true, pending: [] } });
    expect(await load()).toEqual(want);
    await goodAgain();

    await snapshots.save(streams.passesPool, { revision: last!.revision, eventId: last!.id, version: 0, data: { available: 1, supplySet: true, pending: [] } });
    expect(await load()).toEqual(want);
    await goodAgain();
  });
});
