/**
 * Member keys in PostgreSQL: table `member_keys` in the event store's own schema, so the keys
 * live and are backed up beside the events. A destroyed key's row keeps the member id with a
 * NULL key (so it is never created again); a logical dump (pg_dump) then holds no trace of it.
 * The old row version stays in the table's file until VACUUM reclaims it (autovacuum, or
 * `VACUUM <schema>.member_keys` after an erasure): docs/architecture.md, "Personal data".
 */
import { KEY_BYTES, newKey } from './cipher';
import type { KeysForOptions, KeyStore } from './key-store';
import type { SqlClient } from '../event-store/sql/client';
import { quoteIdent } from '../event-store/sql/identifiers';
import { sqlFile } from '../event-store/sql/sql-file';

const sql = sqlFile(new URL('./postgres-key-store.sql', import.meta.url));

export function memberKeysSql(schema: string): string {
  return sql('create_table', { schema: quoteIdent(schema), key_bytes: String(KEY_BYTES) });
}

/**
 * Up to this many members, their keys are read by one primary-key probe each: left to choose for
 * `member_id = ANY($1)`, PostgreSQL's planner scans the whole table for a catch-up page's few
 * hundred ids once it holds tens of thousands of members (docs/benchmarks/history/rebuild.md,
 * "The members' keys read by primary key"). Past this many a scan can be cheaper: the planner chooses.
 */
const PROBED_LOOKUP_MAX = 2_000;

export class PostgresKeyStore implements KeyStore {
  private readonly sql: { probed: string; matched: string; create: string; destroy: string; import: string };

  private constructor(
    private readonly client: SqlClient,
    schema: string,
  ) {
    const values = { schema: quoteIdent(schema) };
    this.sql = {
      probed: sql('select_probed', values),
      matched: sql('select_matched', values),
      create: sql('create_keys', values),
      destroy: sql('destroy_key', values),
      import: sql('import_keys', values),
    };
  }

  /** Creates the table when missing (another process may be creating it at the same moment). */
  static async open(client: SqlClient, schema: string): Promise<PostgresKeyStore> {
    try {
      await client.query(memberKeysSql(schema));
    } catch (error) {
      // Two first starts at once: one CREATE wins, the other sees the catalog's unique violation.
      if ((error as { code?: string }).code !== '23505') throw error;
    }
    return new PostgresKeyStore(client, schema);
  }

  async keysFor(memberIds: readonly string[], options: KeysForOptions = {}): Promise<Map<string, Buffer>> {
    const ids = [...new Set(memberIds)];
    const found = new Map<string, Buffer>();
    if (ids.length === 0) return found;
    if (options.create) {
      const keys = ids.map(() => newKey().toString('hex'));
      await this.client.query(this.sql.create, [ids, keys]);
    }
    const { rows } = await this.client.query<{ member_id: string; key: string }>(ids.length <= PROBED_LOOKUP_MAX ? this.sql.probed : this.sql.matched, [ids]);
    for (const row of rows) found.set(row.member_id, Buffer.from(row.key, 'hex'));
    return found;
  }

  async destroy(memberId: string): Promise<void> {
    await this.client.query(this.sql.destroy, [memberId]);
  }

  /**
   * Takes over keys from another store (a standalone's DATA_DIR/member-keys, moving to
   * PostgreSQL), destroyed ones as destroyed; a member already here keeps what is here.
   */
  async importKeys(entries: Iterable<[memberId: string, key: Buffer | null]>, pageSize = 1_000): Promise<number> {
    let count = 0;
    let page: [string, Buffer | null][] = [];
    const flush = async () => {
      if (page.length === 0) return;
      await this.client.query(this.sql.import, [page.map(([m]) => m), page.map(([, k]) => (k ? k.toString('hex') : ''))]);
      count += page.length;
      page = [];
    };
    for (const entry of entries) {
      page.push(entry);
      if (page.length >= pageSize) await flush();
    }
    await flush();
    return count;
  }

  async close(): Promise<void> {}
}
