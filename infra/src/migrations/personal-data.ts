/**
 * One-time migration: encrypts the personal fields of events written before the store encrypted
 * them (members who joined before erasure by key existed), in place, with each member's key. Run on
 * a stopped standalone (PGlite refuses a second process) or on PostgreSQL; after a backup.
 * Idempotent: values already encrypted (`pd1:`) are left as they are, so a run cut short is
 * simply run again. EventStoreDB/KurrentDB cannot rewrite an event and is refused.
 * docs/architecture.md, "Personal data", says what it leaves behind and how to clear that too.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SqlEventStore } from '@pass/events/store';
import { encryptEvent, isEncrypted, openKeyStore, personalFieldsByType, personalFieldsOf } from '@pass/events/personal-data';
import type { Settings } from '../config/settings';
import { MigrationRefused, openStoreToMigrate } from './store';

export { MigrationRefused } from './store';

export interface MigrationReport {
  /** Events that held at least one personal field in clear, now encrypted. */
  encrypted: number;
  /** Events of the mapped types looked at. */
  scanned: number;
}

const PAGE = 1_000;

export async function encryptPersonalData(settings: Settings, onProgress: (report: MigrationReport) => void = () => {}): Promise<MigrationReport> {
  const url = settings.eventStoreUrl;
  if (!/^(pglite:|postgres(ql)?:\/\/)/.test(url) || url === 'pglite:memory') {
    throw new MigrationRefused('EVENT_STORE_URL must be the embedded store in a folder or a postgres://… store (EventStoreDB events cannot be rewritten)');
  }
  const store = await openStoreToMigrate(url);
  if (!(store instanceof SqlEventStore)) throw new MigrationRefused(`cannot rewrite events in a ${store.kind} store`);
  const keys = await openKeyStore(url, store, { keysDir: join(settings.dataDir, 'member-keys') });
  const schema = /^postgres/.test(url) ? (new URL(url).searchParams.get('schema') ?? 'event_store') : 'event_store';
  const table = `"${schema.replaceAll('"', '""')}".events`;
  const types = Object.keys(personalFieldsByType);
  const report: MigrationReport = { encrypted: 0, scanned: 0 };
  try {
    let after = '0';
    for (;;) {
      const { rows } = await store.client.query<{ pos: string; type: string; data: Record<string, unknown> }>(
        `SELECT global_position::text AS pos, type, data FROM ${table} WHERE type = ANY($1::text[]) AND global_position > $2::bigint ORDER BY global_position LIMIT ${PAGE}`,
        [types, after],
      );
      if (rows.length === 0) break;
      after = rows.at(-1)!.pos;
      report.scanned += rows.length;
      const clear = rows.filter((row) => holdsClearText(row.type, row.data));
      if (clear.length > 0) {
        const owners = [...new Set(clear.map((row) => String(row.data[personalFieldsOf(row.type)!.owner])))];
        const memberKeys = await keys.keysFor(owners, { create: true });
        const changed = clear.map((row) => ({ position: row.pos, data: encryptEvent(row, memberKeys).data }));
        await store.client.query(
          `UPDATE ${table} e SET data = u.data::jsonb FROM unnest($1::bigint[], $2::text[]) AS u(pos, data) WHERE e.global_position = u.pos`,
          [changed.map((change) => change.position), changed.map((change) => JSON.stringify(change.data))],
        );
        report.encrypted += changed.length;
      }
      onProgress(report);
    }
    if (report.encrypted > 0) {
      // Rewrites the table into new files, so the old row versions with the clear text leave its data files.
      await store.client.query(`VACUUM FULL ${table}`);
      await store.client.query('CHECKPOINT');
    }
  } finally {
    await keys.close();
    await store.close();
  }
  if (url.startsWith('pglite:')) {
    // Caches written from the clear events; the next start rebuilds them from the store.
    rmSync(join(settings.dataDir, 'read-models.snapshot'), { force: true });
    rmSync(join(settings.dataDir, 'aggregate-snapshots'), { recursive: true, force: true });
  }
  return report;
}

function holdsClearText(type: string, data: Record<string, unknown>): boolean {
  const spec = personalFieldsOf(type);
  if (!spec || typeof data[spec.owner] !== 'string') return false;
  if (spec.fields.some((f) => isEncrypted(data[f]))) return false;
  return spec.fields.some((f) => typeof data[f] === 'string' && data[f] !== '');
}
