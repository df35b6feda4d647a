import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '@pass/events';
import { openEventStore, openPersonalDataEventStore } from '@pass/events/store';
import { dropPostgresSchema, requireService, testPostgresUrl } from '@pass/events/test-support';
import { parseSettings } from '../config/settings';
import { readEverything } from '../test-support/faults/load';
import { ArchiveError } from './archive';
import { sqlStore } from './events';
import { moveToPostgres } from './move';
import { silentProgress } from './progress';

/**
 * The distributed layout's backup as docs/operations.md gives it: pg_dump of the event store's
 * schema, pg_restore into a fresh database, the same events at the same positions, and appends
 * go on there. And the standalone's move onto PostgreSQL: the same events in the same order,
 * each stream writable at its revision.
 */
const base = testPostgresUrl();
const reachable = await requireService('backup: PostgreSQL pg_dump/pg_restore and move-to-postgres', base, 5432);
const suffix = randomUUID().slice(0, 8);
const scratch = [`pass_backup_src_${suffix}`, `pass_backup_dst_${suffix}`];
const movedSchema = `moved_${suffix}`;
const dir = mkdtempSync(join(tmpdir(), 'pass-pg-backup-'));
const urlOf = (database: string, schema?: string) => {
  const url = new URL(base);
  url.pathname = `/${database}`;
  if (schema) url.searchParams.set('schema', schema);
  return url.toString();
};

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function appendSome(store: EventStore, n: number): Promise<void> {
  // Concurrent appends, so several transactions interleave as in production.
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.append(`member-${i % 5}`, [{ id: randomUUID(), type: 'ChatMessageSent', data: { message: `m${i}` }, metadata: { correlationId: `c${i}` } }]),
    ),
  );
}

const essence = (events: RecordedEvent[]) => events.map(({ position: _p, ...rest }) => rest);

beforeAll(async () => {
  if (reachable) for (const db of scratch) await admin(`CREATE DATABASE ${db}`);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!reachable) return;
  for (const db of scratch) await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await dropPostgresSchema(base, movedSchema);
});

describe.skipIf(!reachable)('PostgreSQL event store backup (pg_dump / pg_restore)', () => {
  it('restores the same events at the same positions into a fresh database, which takes appends', { timeout: 60_000 }, async () => {
    const source = await openEventStore(urlOf(scratch[0]!));
    await appendSome(source, 60);
    const before = await readEverything(source);
    const head = await source.headPosition();
    await source.close();

    const dump = join(dir, 'events.dump');
    const run = promisify(execFile);
    const connection = new URL(urlOf(scratch[0]!));
    await run('pg_dump', ['--format=custom', '--schema=event_store', `--file=${dump}`, `--host=${connection.hostname}`, `--port=${connection.port || 5432}`, `--username=${connection.username || 'postgres'}`, scratch[0]!]);
    await run('pg_restore', ['--exit-on-error', `--dbname=${scratch[1]}`, `--host=${connection.hostname}`, `--port=${connection.port || 5432}`, `--username=${connection.username || 'postgres'}`, dump]);

    const restored = await openEventStore(urlOf(scratch[1]!));
    try {
      expect(await readEverything(restored)).toEqual(before);
      expect(await restored.headPosition()).toEqual(head);
      // The runbook's check: the server's transaction ids are past every stored one.
      const check = await sqlStore(restored).client.query<{ ok: boolean }>('SELECT max(transaction_id) < pg_current_xact_id() AS ok FROM event_store.events');
      expect(check.rows[0]!.ok).toBe(true);
      const last = before.filter((e) => e.streamId === 'member-1').at(-1)!;
      await restored.append('member-1', [{ id: randomUUID(), type: 'ChatMessageSent', data: { message: 'after' }, metadata: {} }], last.revision);
      const after = await readEverything(restored);
      expect(after).toHaveLength(before.length + 1);
      expect(after.at(-1)!.revision).toBe(last.revision + 1);
    } finally {
      await restored.close();
    }
  });
});

describe.skipIf(!reachable)('npm run move-to-postgres', () => {
  it('copies a stopped standalone store in order, each stream writable at its revision; refuses a target holding events', { timeout: 60_000 }, async () => {
    const dataDir = join(dir, 'standalone');
    const local = await openEventStore(`pglite:${join(dataDir, 'events')}`);
    await appendSome(local, 40);
    await local.append('member-2', [1, 2, 3].map((i) => ({ id: randomUUID(), type: 'ChatMessageSent', data: { message: `batch ${i}` }, metadata: {} })));
    await local.close();
    // A member as the site writes one: the e-mail encrypted with a key in DATA_DIR/member-keys.
    const site = await openPersonalDataEventStore(`pglite:${join(dataDir, 'events')}`);
    const registered = { userId: 'u-moved', email: 'moved.member@example.com', passwordHash: 'h', points: 0, priority: '', registeredAt: new Date().toISOString() };
    await site.append('user-u-moved', [{ id: randomUUID(), type: 'UserRegistered', data: registered, metadata: {} }]);
    await site.close();
    const raw = await openEventStore(`pglite:${join(dataDir, 'events')}`);
    const before = await readEverything(raw);
    await raw.close();

    const target = urlOf('test', movedSchema);
    const settings = parseSettings({ DATA_DIR: dataDir });
    expect(await moveToPostgres(settings, target, silentProgress)).toEqual({ events: before.length });

    const moved = await openEventStore(target);
    try {
      expect(essence(await readEverything(moved))).toEqual(essence(before));
      expect(JSON.stringify((await moved.readStream('user-u-moved')).map((e) => e.data))).not.toContain('moved.member@example.com');
      // The key came along: the distributed services read the member, not an erased one.
      const services = await openPersonalDataEventStore(target);
      try {
        expect((await services.readStream('user-u-moved'))[0]!.data).toMatchObject({ email: 'moved.member@example.com' });
      } finally {
        await services.close();
      }
      const last = before.filter((e) => e.streamId === 'member-2').at(-1)!;
      const stale = moved.append('member-2', [{ id: randomUUID(), type: 'ChatMessageSent', data: { message: 'stale' }, metadata: {} }], last.revision - 1);
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const next = await moved.append('member-2', [{ id: randomUUID(), type: 'ChatMessageSent', data: { message: 'next' }, metadata: {} }], last.revision);
      expect(next.nextExpectedRevision).toBe(last.revision + 1);
    } finally {
      await moved.close();
    }
    await expect(moveToPostgres(settings, target, silentProgress)).rejects.toBeInstanceOf(ArchiveError);
  });
});
