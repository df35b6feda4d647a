import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { projectInto, toPositioned } from '../projections/apply';
import { createProjector } from '../projector';
import { appendEvents } from '../test-support/append';
import { generateEvents } from '../test-support/generate-events';
import { createMemoryReadModels, type MemoryReadModelStore } from './memory';
import { createReadModelSnapshots } from './memory-snapshot';

const logger = pino({ level: 'silent' });
const events = [...generateEvents({ users: 150, seed: 11 })];

describe('read-model snapshots (standalone restarts)', () => {
  let dir: string;
  let file: string;
  let store: EventStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pass-snapshot-'));
    file = join(dir, 'read-models.snapshot');
    store = await openPgliteEventStore();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Projects everything in the store into `readModels` (a fresh or restored one), then stops. */
  const project = async (readModels: MemoryReadModelStore, eventStore = store) => {
    const projector = createProjector({ eventStore, readModels, logger, maxBatchSize: 100 });
    await projector.start();
    await projector.settled();
    await projector.stop();
  };
  const cleanRebuild = async () => {
    const direct = await createMemoryReadModels().active();
    await projectInto(direct, toPositioned(await store.readAll({ maxCount: 100_000 })));
    return direct.dump();
  };
  // Parts of 40 entries: the file holds many of each kind, read back one at a time.
  const snapshots = (readModels: MemoryReadModelStore, eventStore = store) => createReadModelSnapshots({ file, readModels, eventStore, logger, partEntries: 40 });

  it('a restart restores the read models and catches up from their checkpoint, equal to a clean rebuild', async () => {
    await appendEvents(store, events.slice(0, 500));
    const before = createMemoryReadModels();
    await project(before);
    await snapshots(before).save('shutdown');

    await appendEvents(store, events.slice(500));
    const after = createMemoryReadModels();
    expect(await snapshots(after).load()).toBe('loaded');
    expect((await (await after.active()).dump()).rows).toHaveLength((await (await before.active()).dump()).rows.length);
    await project(after);
    const [got, want] = [await (await after.active()).dump(), await cleanRebuild()];
    expect({ ...got, checkpoint: null }).toEqual({ ...want, checkpoint: null });
    expect(got.checkpoint).toBe(want.checkpoint);
  });

  it('a snapshot of another event store (a replaced data directory) is not used', async () => {
    await appendEvents(store, events.slice(0, 300));
    const readModels = createMemoryReadModels();
    await project(readModels);
    await snapshots(readModels).save('shutdown');

    const other = await openPgliteEventStore();
    try {
      await appendEvents(other, events.slice(0, 300)); // same events, other ids: not the store it was taken from
      const fresh = createMemoryReadModels();
      expect(await snapshots(fresh, other).load()).toBe('discarded');
      expect((await (await fresh.active()).dump()).rows).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('a snapshot written by other projection code, or damaged, is not used', async () => {
    await appendEvents(store, events.slice(0, 200));
    const readModels = createMemoryReadModels();
    await project(readModels);
    await snapshots(readModels).save('shutdown');
    const bytes = readFileSync(file);
    const headerEnd = 4 + bytes.readUInt32BE(0);
    const header = JSON.parse(bytes.subarray(4, headerEnd).toString('utf8')) as { fingerprint: string };
    const older = Buffer.from(JSON.stringify({ ...header, fingerprint: 'older projections' }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(older.length);
    writeFileSync(file, Buffer.concat([length, older, bytes.subarray(headerEnd)]));
    expect(await snapshots(createMemoryReadModels()).load()).toBe('discarded');

    await snapshots(readModels).save('again'); // the discarded file was removed, so this writes anew
    writeFileSync(file, readFileSync(file).subarray(0, 200));
    expect(await snapshots(createMemoryReadModels()).load()).toBe('discarded');
    expect(await snapshots(createMemoryReadModels()).load()).toBe('none');

    // Cut in a later part: the read models restored so far are not kept.
    await snapshots(readModels).save('once more');
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 10));
    const damaged = createMemoryReadModels();
    expect(await snapshots(damaged).load()).toBe('discarded');
    expect((await (await damaged.active()).dump()).rows).toEqual([]);
  });

  it('nothing is written for empty read models, and a missing file loads nothing', async () => {
    const readModels = createMemoryReadModels();
    await snapshots(readModels).save('shutdown');
    expect(await snapshots(readModels).load()).toBe('none');
  });
});
