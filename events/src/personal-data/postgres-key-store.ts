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

export function memberKeysSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.member_keys (
  member_id text PRIMARY KEY,
  key bytea CHECK (key IS NULL OR length(key) = ${KEY_BYTES}),
  destroyed_at timestamptz
)`;
}

/**
 * Up to this many members, their keys are read by one primary-key probe each. PostgreSQL's
 * planner, left to choose for `member_id = ANY($1)`, scans the whole table for a few hundred ids
 * once it holds tens of thousands of members (a page of a catch-up at ~92,000: 17 ms where the
 * probes take 1.5 ms), which was most of the CPU PostgreSQL spent on a 1M-event rebuild beyond
 * its read floor (docs/benchmarks.md). Past this many ids a scan can be the cheaper plan, and the
 * planner chooses.
 */
const PROBED_LOOKUP_MAX = 2_000;

export class PostgresKeyStore implements KeyStore {
  private readonly table: string;
  private readonly sql: { probed: string; matched: string };

  private constructor(
    private readonly client: SqlClient,
    schema: string,
  ) {
    this.table = `${quoteIdent(schema)}.member_keys`;
    this.sql = {
      // LATERAL with LIMIT 1: a probe per id, never turned into a join that hashes the table.
      probed: `SELECT wanted.id AS member_id, encode(k.key, 'hex') AS key FROM unnest($1::text[]) AS wanted(id)
  CROSS JOIN LATERAL (SELECT key FROM ${this.table} WHERE member_id = wanted.id AND key IS NOT NULL LIMIT 1) k`,
      matched: `SELECT member_id, encode(key, 'hex') AS key FROM ${this.table} WHERE member_id = ANY($1::text[]) AND key IS NOT NULL`,
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
      await this.client.query(
        `INSERT INTO ${this.table} (member_id, key) SELECT m, decode(k, 'hex') FROM unnest($1::text[], $2::text[]) AS n(m, k) ON CONFLICT (member_id) DO NOTHING`,
        [ids, keys],
      );
    }
    const { rows } = await this.client.query<{ member_id: string; key: string }>(ids.length <= PROBED_LOOKUP_MAX ? this.sql.probed : this.sql.matched, [ids]);
    for (const row of rows) found.set(row.member_id, Buffer.from(row.key, 'hex'));
    return found;
  }

  async destroy(memberId: string): Promise<void> {
    await this.client.query(
      `INSERT INTO ${this.table} (member_id, key, destroyed_at) VALUES ($1, NULL, now())
       ON CONFLICT (member_id) DO UPDATE SET key = NULL, destroyed_at = coalesce(${this.table}.destroyed_at, now())`,
      [memberId],
    );
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
      await this.client.query(
        `INSERT INTO ${this.table} (member_id, key, destroyed_at)
         SELECT m, decode(nullif(k, ''), 'hex'), CASE WHEN k = '' THEN now() END FROM unnest($1::text[], $2::text[]) AS n(m, k)
         ON CONFLICT (member_id) DO NOTHING`,
        [page.map(([m]) => m), page.map(([, k]) => (k ? k.toString('hex') : ''))],
      );
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
