import { continuousProgress, type PreparedJson, type ProgressDay } from '@pass/events';
import type { Keyspace } from './port';
import { toProgressView } from './views';

/** What the previous build read: every stored day but the last, already serialised. */
interface Head {
  keyspace: string;
  /** The stored days, as counted when the head was read (the last one included). */
  days: number;
  /** The date of the last stored day then: the one day a batch may still rewrite. */
  lastDate: string;
  /** The day before it (null: it was the first), which quiet days after it are filled from. */
  before: ProgressDay | null;
  /** The continuous series up to that day, as UTF-8 JSON array elements (empty, or ending in a comma). */
  json: Buffer;
}

/**
 * Builds the GET /api/progress body after a batch without reading or serialising the whole
 * series again. A batch rewrites only the last stored day or adds days after it
 * (projections/progress.ts), so while the keyspace, the number of days and the last day's date
 * are those of the previous build, every earlier day and its JSON are unchanged: the build reads
 * the figures and the last day (Keyspace.progressTail) and serialises one day. Otherwise (a new
 * day, another keyspace) it reads the whole series once. The bytes are those of
 * `JSON.stringify(toProgressView(main, days))`.
 */
export function progressBodyBuilder(): (ks: Keyspace) => Promise<PreparedJson> {
  let head: Head | null = null;
  return async (ks) => {
    const [main, tail] = await Promise.all([ks.main(), ks.progressTail()]);
    if (!tail.last || head?.keyspace !== ks.id || head.days !== tail.days || head.lastDate !== tail.last.date) {
      head = readHead(ks.id, await ks.progress());
    }
    const envelope = JSON.stringify(toProgressView(main, []));
    const lastDays = head.before ? continuousProgress([head.before, tail.last ?? head.before]).slice(1) : tail.last ? [tail.last] : [];
    // The envelope ends in `"days":[]}`: the series goes between the brackets.
    return { bytes: joined(head.json, envelope.slice(0, -2), `${lastDays.map((day) => JSON.stringify(day)).join(',')}]}`) };
  };
}

/**
 * `before`, `head` and `after` as one buffer, copied once: the head (a quarter of a megabyte after
 * five years) is neither made into a string again nor encoded again.
 */
function joined(head: Buffer, before: string, after: string): Buffer {
  const beforeBytes = Buffer.byteLength(before);
  const bytes = Buffer.allocUnsafe(beforeBytes + head.length + Buffer.byteLength(after));
  bytes.write(before, 0);
  head.copy(bytes, beforeBytes);
  bytes.write(after, beforeBytes + head.length);
  return bytes;
}

/** The head of a series read whole: its days before the last, serialised once. */
function readHead(keyspace: string, stored: readonly ProgressDay[]): Head {
  const last = stored.at(-1);
  const earlier = stored.slice(0, -1);
  const series = continuousProgress(earlier);
  return {
    keyspace,
    days: stored.length,
    lastDate: last?.date ?? '',
    before: earlier.at(-1) ?? null,
    json: Buffer.from(series.map((day) => `${JSON.stringify(day)},`).join('')),
  };
}
