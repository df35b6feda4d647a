/**
 * Events as a backup holds them: one JSON line each, in the store's global order. Restoring
 * inserts them in that order into a fresh SQL store, so each keeps its id, stream, revision,
 * type, data, metadata and time; its global position is given anew by the target (positions
 * embed the writing transaction's id, which a fresh database cannot take over), in the same order.
 */
import { z } from 'zod';
import { comparePositions, positionToString, START, type EventStore, type GlobalPosition, type RecordedEvent } from '@pass/events';
import { SqlEventStore } from '@pass/events/store';

export const backupEventSchema = z.object({
  id: z.uuid(),
  streamId: z.string().min(1),
  revision: z.number().int().nonnegative(),
  position: z.string(),
  type: z.string().min(1),
  data: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
  recordedAt: z.iso.datetime(),
});
export type BackupEvent = z.infer<typeof backupEventSchema>;

export function toBackupLine(event: RecordedEvent): string {
  const line: BackupEvent = {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: positionToString(event.position),
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    recordedAt: event.recordedAt.toISOString(),
  };
  return JSON.stringify(line);
}

export const PAGE_SIZE = 1_000;

/**
 * Every event up to and including `head`, a page at a time. Each page is one query, so on PGlite
 * (one query at a time) the site's appends go on between pages; events appended after `head`
 * are left out, so the copy is the store as it was when the backup began.
 */
export async function* eventPages(store: EventStore, head: GlobalPosition, pageSize = PAGE_SIZE): AsyncGenerator<RecordedEvent[]> {
  if (comparePositions(head, START) === 0) return;
  let after = START;
  for (;;) {
    const page = await store.readAll({ after, maxCount: pageSize });
    const upToHead = page.filter((e) => comparePositions(e.position, head) <= 0);
    if (upToHead.length > 0) yield upToHead;
    if (page.length < pageSize || upToHead.length < page.length) return;
    after = page.at(-1)!.position;
  }
}

/** The SQL store behind a URL, for raw inserts in its own schema. */
export function sqlStore(store: EventStore): SqlEventStore {
  if (!(store instanceof SqlEventStore)) throw new Error(`restoring needs a PGlite or PostgreSQL event store, not ${store.kind}`);
  return store;
}

/** The schema an event store URL names (`?schema=`, default `event_store`, as open.ts reads it). */
export function schemaOf(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url)) return 'event_store';
  return new URL(url).searchParams.get('schema') ?? 'event_store';
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Events in the target store; a restore or move refuses a store that holds any. */
export async function storedEventCount(store: SqlEventStore, schema: string): Promise<number> {
  const { rows } = await store.client.query<{ n: string | number }>(`SELECT count(*) AS n FROM ${quote(schema)}.events`);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Inserts events in the given order, in one statement and transaction, so they get ascending
 * positions in that order. Sub-millisecond times are not kept (the port reads milliseconds).
 */
export async function insertEvents(store: SqlEventStore, schema: string, events: BackupEvent[]): Promise<void> {
  if (events.length === 0) return;
  const quotedSchema = quote(schema);
  await store.client.query(
    `INSERT INTO ${quotedSchema}.events (event_id, stream_id, revision, type, data, metadata, recorded_at)
     SELECT (e->>'id')::uuid, e->>'streamId', (e->>'revision')::bigint, e->>'type', e->'data', e->'metadata', (e->>'recordedAt')::timestamptz
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS u(e, ord)
      ORDER BY ord`,
    [JSON.stringify(events)],
  );
}

/**
 * PostgreSQL's appends lock and advance a per-stream row (`streams`), which the embedded store
 * does not keep: after copying events into PostgreSQL, each stream's row gets its last revision.
 */
export async function fillStreamRows(store: SqlEventStore, schema: string): Promise<void> {
  const quotedSchema = quote(schema);
  await store.client.query(
    `INSERT INTO ${quotedSchema}.streams (stream_id, revision)
     SELECT stream_id, max(revision) FROM ${quotedSchema}.events GROUP BY stream_id
     ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision`,
  );
}
