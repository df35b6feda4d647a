import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEventStoreContract, newEvent } from './contract';
import { openPgliteEventStore } from './pglite';
import { describeSqlEventStoreSpecifics } from './sql-contract';

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
  it('works without a directory and forgets everything on close', async () => {
    const first = await openPgliteEventStore();
    await first.append('mem-1', [newEvent()], 'no_stream');
    expect(await first.readStream('mem-1')).toHaveLength(1);
    await first.close();
    const second = await openPgliteEventStore();
    expect(await second.readStream('mem-1')).toEqual([]);
    await second.close();
  });
});
