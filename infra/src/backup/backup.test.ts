import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@pass/events';
import { openEventStore } from '@pass/events/store';
import { parseSettings } from '../config/settings';
import { readEverything } from '../test-support/faults/load';
import { ArchiveError } from './archive';
import { takeBackup } from './backup';
import { readLastBackup } from './data-dir';
import { silentProgress } from './progress';
import { restoreBackup } from './restore';

/**
 * The archive round trip without a running site (the CLI reads DATA_DIR's store directly): what
 * goes in comes back in the same order with the same files; snapshots and caches stay out; a
 * non-empty target, a truncated or a damaged archive are refused and leave the target as it was.
 */
const root = mkdtempSync(join(tmpdir(), 'pass-backup-'));
const source = join(root, 'source');
const archive = join(root, 'site.bak');
const settingsFor = (dataDir: string) => parseSettings({ DATA_DIR: dataDir });
let original: RecordedEvent[];

const comparable = (events: RecordedEvent[]) => events.map(({ position: _position, ...rest }) => rest);

beforeAll(async () => {
  const store = await openEventStore(`pglite:${join(source, 'events')}`);
  for (let i = 0; i < 1_300; i++) {
    await store.append(`chat-${i % 7}`, [{ id: randomUUID(), type: 'ChatMessageSent', data: { message: `hello ${i}`, emoji: 'ü😀' }, metadata: { correlationId: `c${i}` } }]);
  }
  original = await readEverything(store);
  await store.close();
  mkdirSync(join(source, 'uploads'), { recursive: true });
  writeFileSync(join(source, 'uploads', 'a.webp'), Buffer.alloc(300_000, 7));
  writeFileSync(join(source, 'session-secret'), 'x'.repeat(43));
  mkdirSync(join(source, 'member-keys', 'm1'), { recursive: true });
  writeFileSync(join(source, 'member-keys', 'm1', 'key.json'), '{"k":1}');
  writeFileSync(join(source, 'read-models.snapshot'), 'cache');
  mkdirSync(join(source, 'aggregate-snapshots'));
  writeFileSync(join(source, 'aggregate-snapshots', 'pool.json'), '{}');
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('backup and restore (no site running)', () => {
  it('restores the same events in the same order, and the data files but not the caches', { timeout: 60_000 }, async () => {
    const { manifest } = await takeBackup(settingsFor(source), archive, silentProgress);
    expect(manifest).toMatchObject({ source: 'offline', eventCount: 1_300, fileCount: 3 });
    expect((await readLastBackup(source))?.events).toBe(1_300);

    const target = join(root, 'restored');
    await restoreBackup(settingsFor(target), archive, silentProgress);
    const store = await openEventStore(`pglite:${join(target, 'events')}`);
    try {
      expect(comparable(await readEverything(store))).toEqual(comparable(original));
    } finally {
      await store.close();
    }
    expect(readFileSync(join(target, 'uploads', 'a.webp'))).toEqual(readFileSync(join(source, 'uploads', 'a.webp')));
    expect(readFileSync(join(target, 'session-secret'), 'utf8')).toBe('x'.repeat(43));
    expect(readFileSync(join(target, 'member-keys', 'm1', 'key.json'), 'utf8')).toBe('{"k":1}');
    expect(existsSync(join(target, 'read-models.snapshot'))).toBe(false);
    expect(existsSync(join(target, 'aggregate-snapshots'))).toBe(false);
    expect(readdirSync(target).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('refuses a DATA_DIR that is not empty and changes nothing in it', async () => {
    const target = join(root, 'busy');
    mkdirSync(target);
    writeFileSync(join(target, 'keep.txt'), 'mine');
    await expect(restoreBackup(settingsFor(target), archive, silentProgress)).rejects.toThrow(/is not empty/);
    expect(readdirSync(target)).toEqual(['keep.txt']);
  });

  it('refuses a truncated archive with one line and leaves no DATA_DIR behind', { timeout: 30_000 }, async () => {
    const cut = join(root, 'cut.bak');
    const bytes = readFileSync(archive);
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.8)));
    const target = join(root, 'from-cut');
    const refusal = restoreBackup(settingsFor(target), cut, silentProgress);
    await expect(refusal).rejects.toBeInstanceOf(ArchiveError);
    await expect(refusal).rejects.toThrow(/truncated/);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a damaged archive and leaves an empty DATA_DIR empty', { timeout: 30_000 }, async () => {
    const damaged = join(root, 'damaged.bak');
    const bytes = Buffer.from(readFileSync(archive));
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(damaged, bytes);
    const target = join(root, 'from-damaged');
    mkdirSync(target);
    await expect(restoreBackup(settingsFor(target), damaged, silentProgress)).rejects.toThrow(/damaged|truncated/);
    expect(readdirSync(target)).toEqual([]);
    expect(statSync(target).isDirectory()).toBe(true);
  });
});
