import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEventStoreContract, newEvent } from '../test-support/event-store-contract';
import { openPgliteEventStore } from './pglite';
import { describeSqlEventStoreSpecifics } from '../test-support/sql-event-store-contract';

const onDisk = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pass-events-pglite-'));
  return {
    open: () => openPgliteEventStore({ dataDir }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
};

describeEventStoreContract('PGlite (directory)', onDisk);
describeSqlEventStoreSpecifics('PGlite (directory)', onDisk);

describe('PGlite in memory', () => {
  it('works without a directory (tests, pglite:memory)', async () => {
    const store = await openPgliteEventStore();
    await store.append('mem-1', [newEvent()], 'no_stream');
    expect(await store.readStream('mem-1')).toHaveLength(1);
    await store.close();
  });
});

describe('PGlite directory lock', () => {
  it('refuses a second open of a directory in use, and reopens after close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pass-events-lock-'));
    try {
      const first = await openPgliteEventStore({ dataDir });
      await expect(openPgliteEventStore({ dataDir })).rejects.toThrow(/already open in process/);
      await first.append('lock-1', [newEvent()]);
      await first.close();
      const second = await openPgliteEventStore({ dataDir });
      expect(await second.readStream('lock-1')).toHaveLength(1);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
