import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl } from '../test-support/services';
import { newEvent } from '../test-support/event-store-contract';
import { openEventStore } from './open';
import { EventStoreUnavailableError } from './port';

const pgUrl = testPostgresUrl();
const pgReachable = await requireService('PostgreSQL openEventStore', pgUrl, 5432);

describe('openEventStore: the store named by EVENT_STORE_URL', () => {
  it('pglite:memory opens the embedded store in memory', async () => {
    const store = await openEventStore('pglite:memory');
    try {
      expect(store.kind).toBe('pglite');
      await store.append('open-1', [newEvent()]);
      expect(await store.readStream('open-1')).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it.skipIf(!pgReachable)('postgres:// opens PostgreSQL in the schema named by ?schema=', async () => {
    const schema = `es_open_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const store = await openEventStore(`${pgUrl}?schema=${schema}&poolSize=2`);
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      expect(store.kind).toBe('postgres');
      await store.append('open-2', [newEvent()]);
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}".events`);
      expect(rows[0].n).toBe(1);
    } finally {
      await store.close();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });

  it('refuses an unknown scheme or a bad pool size, naming the problem', async () => {
    await expect(openEventStore('mysql://u:secret@host/db')).rejects.toThrow(/Unknown event store URL "mysql:\/\/\*\*\*@host\/db"/);
    await expect(openEventStore('pglite:')).rejects.toThrow(/needs a directory/);
    await expect(openEventStore('postgres://127.0.0.1/x?poolSize=0')).rejects.toThrow(/poolSize must be a positive integer/);
  });

  it('a PostgreSQL server that cannot be reached is EventStoreUnavailableError', async () => {
    await expect(openEventStore('postgresql://postgres@127.0.0.1:1/test')).rejects.toBeInstanceOf(EventStoreUnavailableError);
  });
});
