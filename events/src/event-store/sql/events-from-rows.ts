/**
 * Read results as `RecordedEvent`s, in each of the three forms a read comes back in: rows, one
 * JSON value per page (pagesAsJson), or COPY's text output (bulk `$all` reads).
 */
import type { RecordedEvent } from '../port';

export interface EventRow {
  event_id: string;
  stream_id: string;
  revision: string | number | bigint;
  tx: string;
  global_position: string | number | bigint;
  type: string;
  data: unknown;
  metadata: Record<string, unknown> | null;
  /** Milliseconds since the epoch (a number parses far faster than a timestamp's text). */
  recorded_ms: string | number;
}

const toNumber = (v: string | number | bigint) => Number(v);

export function toEvent(row: EventRow, metadata: Record<string, unknown> = row.metadata ?? {}): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: toNumber(row.revision),
    position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) },
    type: row.type,
    data: row.data,
    metadata,
    recordedAt: new Date(Number(row.recorded_ms)),
  };
}

/** The metadata of a read that kept only `keys`: the i-th key's value is `valueAt(i)`; absent ones are left out. */
function pickMetadata(keys: readonly string[], valueAt: (i: number) => unknown): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const value = valueAt(i);
    if (value !== null && value !== undefined) metadata[keys[i]!] = value;
  }
  return metadata;
}

/** An event of a `$all` read that kept only some metadata keys, each in its own column (slimColumns). */
export function toSlimEvent(row: EventRow & Record<string, unknown>, keys: readonly string[]): RecordedEvent {
  return toEvent(row, pickMetadata(keys, (i) => row[`m${i}`]));
}

/** One event of a page read as JSON (jsonPage): the row's columns in order, metadata as asked. */
type JsonPageEvent = [id: string, streamId: string, revision: number, tx: string, globalPosition: string, type: string, data: unknown, ...rest: unknown[]];

/** The `page` value of a jsonPage read's one row. */
export function pageOf(rows: unknown[]): JsonPageEvent[] {
  return (rows[0] as { page: JsonPageEvent[] }).page;
}

/** The events of a page read as one JSON array; `keys`: the metadata keys asked for (else the whole metadata). */
export function fromJsonPage(page: JsonPageEvent[], keys: readonly string[] | undefined): RecordedEvent[] {
  return page.map((entry) => {
    const metadata = keys ? pickMetadata(keys, (i) => entry[7 + i]) : ((entry[7] as Record<string, unknown> | null) ?? {});
    return {
      id: entry[0],
      streamId: entry[1],
      revision: entry[2],
      position: { commit: BigInt(entry[3]), prepare: BigInt(entry[4]) },
      type: entry[5],
      data: entry[6],
      metadata,
      recordedAt: new Date(entry[entry.length - 1] as number),
    };
  });
}

/** One field of COPY's text format as its value: `\N` is NULL; backslash escapes undone. */
function copyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, escaped: string) => COPY_ESCAPES[escaped] ?? escaped);
}

/** What COPY TO writes after a backslash (PostgreSQL's CopyAttributeOutText), and the character it stands for. */
const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** The events of a `$all` page read by COPY (allRowsCopy's columns, in order), as readAll answers them. */
export function fromCopyText(text: string, keys: readonly string[] | undefined): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const json = (field: string): unknown => {
    const value = copyField(field);
    return value === null ? null : JSON.parse(value);
  };
  const metadataCount = keys ? keys.length : 1;
  for (let start = 0, end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    const fields = text.slice(start, end).split('\t');
    const metadata = keys ? pickMetadata(keys, (i) => json(fields[7 + i]!)) : ((json(fields[7]!) as Record<string, unknown> | null) ?? {});
    events.push({
      id: fields[0]!,
      streamId: copyField(fields[1]!)!,
      revision: Number(fields[2]),
      position: { commit: BigInt(fields[3]!), prepare: BigInt(fields[4]!) },
      type: copyField(fields[5]!)!,
      data: json(fields[6]!),
      metadata,
      recordedAt: new Date(Number(fields[7 + metadataCount])),
    });
  }
  return events;
}

