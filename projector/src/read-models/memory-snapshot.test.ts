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
import { resealSnapshot, snapshotItems } from '../test-support/snapshot-file';
import { createMemoryReadModels, type MemoryReadModelStore } from './memory';
import { createReadModelSnapshots } from './memory-snapshot';

const logger = pino({ level: 'silent' });
const SECRET = 'this installation-s secret, 32 characters or more';
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
  /** A fresh keyspace with every event in the store projected straight into it. */
  const rebuiltKeyspace = async () => {
    const direct = await createMemoryReadModels().active();
    await projectInto(direct, toPositioned(await store.readAll({ maxCount: 100_000 })));
    return direct;
  };
  const cleanRebuild = async () => (await rebuiltKeyspace()).dump();
  // Parts of 40 entries: the file holds many of each kind, read back one at a time.
  const snapshots = (readModels: MemoryReadModelStore, eventStore = store, secret = SECRET) => createReadModelSnapshots({ file, readModels, eventStore, logger, secret, partEntries: 40 });
  /** Loads `bytes` as the file into fresh read models: the outcome, and whether anything was restored. */
  const loadOf = async (bytes: Buffer, secret = SECRET) => {
    writeFileSync(file, bytes);
    const fresh = createMemoryReadModels();
    const outcome = await snapshots(fresh, store, secret).load();
    return { outcome, rows: (await (await fresh.active()).dump()).rows.length };
  };

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
    // The search index came back with them: a search finds the same rows in the same order.
    const direct = await rebuiltKeyspace();
    const searches = [['an'], ['a'], ['ar', 'ia'], ['2026'], ['exam'], ['mem', 'exam'], ['e', '1']].flatMap((terms) => [true, false].map((registry) => ({ terms, registry })));
    for (const { terms, registry } of searches) {
      const query = { membersOnly: !registry, sets: [], text: { terms, registry, posted: false }, offset: 0, limit: 20 };
      const [restored, rebuilt] = [await (await after.active()).users(query), await direct.users(query)];
      if (registry) expect(restored.total, terms.join(' ')).toBeGreaterThan(0);
      expect(restored, terms.join(' ')).toEqual(rebuilt);
    }
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
    // Sealed with this installation's secret, but by other projection code.
    const bytes = readFileSync(file);
    const [header] = snapshotItems(bytes);
    const fields = JSON.parse(bytes.subarray(header!.bodyStart, header!.bodyEnd).toString('utf8')) as { fingerprint: string };
    const older = Buffer.from(JSON.stringify({ ...fields, fingerprint: 'older projections' }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(older.length);
    expect(await loadOf(resealSnapshot(Buffer.concat([length, older, bytes.subarray(header!.end)]), SECRET))).toEqual({ outcome: 'discarded', rows: 0 });
    expect(await snapshots(createMemoryReadModels()).load()).toBe('none');

    await snapshots(readModels).save('again'); // the discarded file was removed, so this writes anew
    writeFileSync(file, readFileSync(file).subarray(0, 200));
    expect(await snapshots(createMemoryReadModels()).load()).toBe('discarded');
    expect(await snapshots(createMemoryReadModels()).load()).toBe('none');

    // Cut in a later part: the read models restored so far are not kept.
    await snapshots(readModels).save('once more');
    const whole = readFileSync(file);
    expect(await loadOf(whole.subarray(0, whole.length - 10))).toEqual({ outcome: 'discarded', rows: 0 });
  });

  it('a byte changed anywhere, parts swapped, the closing seal cut off or bytes appended: the file is not used, nothing is restored', async () => {
    await appendEvents(store, events.slice(0, 120));
    const readModels = createMemoryReadModels();
    await project(readModels);
    await snapshots(readModels).save('shutdown');
    const valid = readFileSync(file);
    expect(await loadOf(valid)).toEqual({ outcome: 'loaded', rows: expect.any(Number) });
    // Every byte of the first and last 100 (lengths, header, tags, closing seal) and 300 spread between.
    const offsets = new Set<number>();
    for (let i = 0; i < 100; i++) offsets.add(i).add(valid.length - 1 - i);
    for (let i = 0; i < 300; i++) offsets.add(Math.floor((i * valid.length) / 300));
    for (const offset of offsets) {
      const flipped = Buffer.from(valid);
      flipped[offset]! ^= 1 << (offset % 8);
      expect(await loadOf(flipped), `byte ${offset} of ${valid.length}`).toEqual({ outcome: 'discarded', rows: 0 });
    }
    const items = snapshotItems(valid);
    expect(items.length).toBeGreaterThan(4);
    const [a, b] = [items[2]!, items[3]!];
    const swapped = Buffer.concat([valid.subarray(0, a.start), valid.subarray(b.start, b.end), valid.subarray(a.start, a.end), valid.subarray(b.end)]);
    expect(await loadOf(swapped)).toEqual({ outcome: 'discarded', rows: 0 });
    expect(await loadOf(valid.subarray(0, valid.length - 32))).toEqual({ outcome: 'discarded', rows: 0 });
    expect(await loadOf(Buffer.concat([valid, Buffer.from('more')]))).toEqual({ outcome: 'discarded', rows: 0 });
    expect(await loadOf(valid)).toEqual({ outcome: 'loaded', rows: expect.any(Number) });
  });

  it("a snapshot sealed with another installation's secret is not used", async () => {
    await appendEvents(store, events.slice(0, 100));
    const readModels = createMemoryReadModels();
    await project(readModels);
    await snapshots(readModels, store, 'another installation, another secret of 32+').save('shutdown');
    expect(await loadOf(readFileSync(file))).toEqual({ outcome: 'discarded', rows: 0 });
  });

  it('replace writes the read models even at the checkpoint last saved; save does not', async () => {
    await appendEvents(store, events.slice(0, 100));
    const readModels = createMemoryReadModels();
    await project(readModels);
    const own = snapshots(readModels);
    await own.save('first');
    writeFileSync(file, 'not a snapshot');
    await own.save('same checkpoint');
    expect(readFileSync(file, 'utf8')).toBe('not a snapshot');
    await own.replace('rebuild');
    expect(await snapshots(createMemoryReadModels()).load()).toBe('loaded');
  });

  it('nothing is written for empty read models, and a missing file loads nothing', async () => {
    const readModels = createMemoryReadModels();
    await snapshots(readModels).save('shutdown');
    expect(await snapshots(readModels).load()).toBe('none');
  });
});
