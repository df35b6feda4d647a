/**
 * `npm run move-to-postgres -- <postgres://…>`: copies the events of EVENT_STORE_URL (a stopped
 * standalone's embedded store by default, or a PostgreSQL store whose writers are stopped) into
 * an empty PostgreSQL event store, in the same order, each with its id, stream, revision, type,
 * data, metadata and time (positions are given anew by PostgreSQL, in that order), and gives
 * each stream its PostgreSQL lock row. The members' keys go with them (personal fields are stored
 * encrypted, and a member without a key reads as erased), destroyed ones staying destroyed. The
 * distributed projector then builds the read models.
 */
import { defaultKeysDir, FileKeyStore, PostgresKeyStore } from '@pass/events/personal-data';
import { openEventStore, type SqlEventStore } from '@pass/events/store';
import type { Settings } from '../config/settings';
import { ArchiveError } from './archive';
import { backupEventSchema, eventPages, fillStreamRows, insertEvents, schemaOf, sqlStore, storedEventCount, toBackupLine } from './events';
import type { Progress } from './progress';
import { storeOwner } from './source';

export async function moveToPostgres(settings: Settings, targetUrl: string, progress: Progress): Promise<{ events: number }> {
  if (!/^postgres(ql)?:\/\//.test(targetUrl)) throw new ArchiveError('the target must be a postgres://… URL');
  if (!/^(pglite:|postgres(ql)?:\/\/)/.test(settings.eventStoreUrl) || settings.eventStoreUrl === 'pglite:memory') {
    throw new ArchiveError('the source (EVENT_STORE_URL) must be the embedded store in a folder or a postgres://… store');
  }
  if (settings.eventStoreUrl === targetUrl) throw new ArchiveError('the source and the target are the same store');
  const owner = storeOwner(settings);
  if (owner !== undefined) throw new ArchiveError(`the site is running (process ${owner}); stop it first, so no event is written after the copy`);
  const source = await openEventStore(settings.eventStoreUrl);
  try {
    const target = sqlStore(await openEventStore(targetUrl));
    const schema = schemaOf(targetUrl);
    try {
      if ((await storedEventCount(target, schema)) > 0) throw new ArchiveError(`the target schema "${schema}" already holds events; give an empty database or another ?schema=`);
      const head = await source.headPosition();
      let count = 0;
      for await (const page of eventPages(source, head)) {
        // Through the backup line format, so a move and a restore write exactly the same rows.
        await insertEvents(target, schema, page.map((e) => backupEventSchema.parse(JSON.parse(toBackupLine(e)))));
        count += page.length;
        progress.update(`${count.toLocaleString('en')} events copied`);
      }
      await fillStreamRows(target, schema);
      const keys = await moveMemberKeys(settings.eventStoreUrl, sqlStore(source), target, schema);
      const stored = await storedEventCount(target, schema);
      if (stored !== count) throw new Error(`copied ${count} events but the target holds ${stored}`);
      progress.done(`move-to-postgres: ${count} events and ${keys} member keys copied into schema "${schema}"; start the distributed services on this EVENT_STORE_URL (the projector builds the read models)`);
      return { events: count };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

const KEY_PAGE = 10_000;

/** The source's member keys into the target's `member_keys`: a standalone's key files, or another schema's table. */
async function moveMemberKeys(sourceUrl: string, source: SqlEventStore, target: SqlEventStore, schema: string): Promise<number> {
  const keys = await PostgresKeyStore.open(target.client, schema);
  if (sourceUrl.startsWith('pglite:')) return keys.importKeys(new FileKeyStore(defaultKeysDir(sourceUrl.slice('pglite:'.length))).entries());
  const table = `"${schemaOf(sourceUrl).replaceAll('"', '""')}".member_keys`;
  const exists = await source.client.query<{ t: string | null }>(`SELECT to_regclass($1) AS t`, [table]);
  if (!exists.rows[0]?.t) return 0;
  let moved = 0;
  for (let after = '';;) {
    const { rows } = await source.client.query<{ member_id: string; key: string | null }>(
      `SELECT member_id, encode(key, 'hex') AS key FROM ${table} WHERE member_id > $1 ORDER BY member_id LIMIT ${KEY_PAGE}`,
      [after],
    );
    if (rows.length === 0) return moved;
    moved += await keys.importKeys(rows.map((r): [string, Buffer | null] => [r.member_id, r.key ? Buffer.from(r.key, 'hex') : null]));
    after = rows.at(-1)!.member_id;
  }
}
