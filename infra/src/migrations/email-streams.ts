/**
 * One-time migration: the streams that reserve an e-mail, named by the unkeyed SHA-256 of the
 * address (`email-<64 hex>`, which a dictionary of addresses reverses) in stores written before,
 * are renamed to the installation's keyed names (`emailStreams`, events/src/streams.ts). The key
 * is made here (in the key store beside the members' keys) when the store has none yet.
 * PGlite and PostgreSQL: the stream ids are rewritten in place, all in one statement (one
 * transaction: every name changes, or none), then the tables' files are rewritten so the old
 * names leave them. EventStoreDB/KurrentDB cannot rename a stream: each one is copied under its
 * new name, then the old one is tombstoned. Idempotent: a name of the new shape is never touched,
 * so a run cut short is run again. docs/architecture.md, "Personal data", says what stays behind.
 */
import { createHash, createHmac } from 'node:crypto';
import { join } from 'node:path';
import {
  emailStreams,
  isUnkeyedEmailStream,
  normalizeEmail,
  START,
  WrongExpectedRevisionError,
  type EventStore,
  type GlobalPosition,
  type NewEvent,
} from '@pass/events';
import { decryptEvents, EMAIL_STREAM_KEY_ID, installationKey, openKeyStore, type KeyStore } from '@pass/events/personal-data';
import { openEsdbTombstones, SqlEventStore, type StreamTombstones } from '@pass/events/store';
import type { Settings } from '../config/settings';
import { MigrationRefused, openStoreToMigrate } from './store';

export interface EmailStreamsReport {
  /** Events looked at (the whole store: an e-mail stream is found by its events). */
  scanned: number;
  /** E-mail streams that had the unkeyed name, now under a keyed one. */
  renamed: number;
  /** Of those, streams of an erased address (its key destroyed): named by a keyed digest of the old name. */
  erased: number;
}

const PAGE = 1_000;

export async function rekeyEmailStreams(settings: Settings, onProgress: (report: EmailStreamsReport) => void = () => {}): Promise<EmailStreamsReport> {
  const url = settings.eventStoreUrl;
  if (url === 'pglite:memory') throw new MigrationRefused('EVENT_STORE_URL names a store in memory: nothing to migrate');
  const store = await openStoreToMigrate(url);
  let keys: KeyStore | undefined;
  try {
    keys = await openKeyStore(url, store, { keysDir: join(settings.dataDir, 'member-keys') });
    return await rekeyEmailStreamsOf(store, keys, () => openEsdbTombstones(url), onProgress);
  } finally {
    await keys?.close();
    await store.close();
  }
}

/**
 * The migration on a store opened as stored and its key store. `tombstones`: how an
 * EventStoreDB store's old streams are hard-deleted (opened only when there are some).
 */
export async function rekeyEmailStreamsOf(
  store: EventStore,
  keys: KeyStore,
  tombstones: () => Promise<StreamTombstones>,
  onProgress: (report: EmailStreamsReport) => void = () => {},
): Promise<EmailStreamsReport> {
  const key = (await installationKey(keys, EMAIL_STREAM_KEY_ID, { create: true }))!;
  const { moves, erased, scanned } = await planRenames(store, keys, key, onProgress);
  const report: EmailStreamsReport = { scanned, renamed: 0, erased: 0 };
  if (moves.size === 0) return report;
  let moved: string[];
  if (store instanceof SqlEventStore) moved = await renameInPlace(store, moves);
  else {
    const hardDeletes = await tombstones();
    try {
      moved = await copyAndTombstone(store, moves, hardDeletes);
    } finally {
      await hardDeletes.close().catch(() => undefined);
    }
  }
  report.renamed = moved.length;
  report.erased = moved.filter((from) => erased.has(from)).length;
  return report;
}

/**
 * The new name of every e-mail stream that has the unkeyed one: its address's keyed name, read
 * from a reservation in it; or, when every reservation in it is erased (no address left to name
 * it by), a keyed digest of the old name (an erased address's reservation: released, so a new
 * join of that address reserves its own keyed name anew).
 */
async function planRenames(store: EventStore, keys: KeyStore, key: Buffer, onProgress: (report: EmailStreamsReport) => void) {
  const addresses = new Map<string, string | undefined>();
  let scanned = 0;
  let after: GlobalPosition = START;
  for (;;) {
    const page = await store.readAll({ after, maxCount: PAGE, metadataKeys: [] });
    if (page.length === 0) break;
    after = page.at(-1)!.position;
    scanned += page.length;
    const unkeyed = page.filter((event) => isUnkeyedEmailStream(event.streamId));
    for (const event of unkeyed) if (!addresses.has(event.streamId)) addresses.set(event.streamId, undefined);
    for (const reservation of await decryptEvents(unkeyed.filter((event) => event.type === 'EmailReserved'), keys)) {
      const email = (reservation.data as { email?: unknown }).email;
      if (typeof email !== 'string' || email === '') continue;
      if (`email-${createHash('sha256').update(normalizeEmail(email)).digest('hex')}` !== reservation.streamId) {
        throw new MigrationRefused(`stream ${reservation.streamId} holds the reservation of an address it is not named by (event ${reservation.id}); nothing was changed`);
      }
      addresses.set(reservation.streamId, email);
    }
    onProgress({ scanned, renamed: 0, erased: 0 });
  }
  const named = emailStreams(key);
  const moves = new Map<string, string>();
  const erased = new Set<string>();
  for (const [from, email] of addresses) {
    moves.set(from, email ? named(email) : `email-${createHmac('sha256', key).update(`erased:${from}`).digest('base64url')}`);
    if (!email) erased.add(from);
  }
  return { moves, erased, scanned };
}

/**
 * One statement renames every stream in the events and the streams tables (a statement is its
 * own transaction: all or nothing); then VACUUM FULL rewrites both tables' files, so the old
 * names' row versions leave them, and a checkpoint writes the result out.
 */
async function renameInPlace(store: SqlEventStore, moves: Map<string, string>): Promise<string[]> {
  const schema = `"${store.schema.replaceAll('"', '""')}"`;
  try {
    await store.client.query(
      `WITH moves AS (SELECT * FROM unnest($1::text[], $2::text[]) AS m(old_id, new_id)),
            renamed_streams AS (UPDATE ${schema}.streams s SET stream_id = m.new_id FROM moves m WHERE s.stream_id = m.old_id RETURNING 1)
       UPDATE ${schema}.events e SET stream_id = m.new_id FROM moves m WHERE e.stream_id = m.old_id`,
      [[...moves.keys()], [...moves.values()]],
    );
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    throw new MigrationRefused('an address already has a stream under its keyed name (the site ran on this store before the migration finished?); nothing was changed');
  }
  await store.client.query(`VACUUM FULL ${schema}.events`);
  await store.client.query(`VACUUM FULL ${schema}.streams`);
  await store.client.query('CHECKPOINT');
  return [...moves.keys()];
}

/**
 * EventStoreDB cannot rename: each stream's events are appended as they are stored (personal
 * fields still sealed) to the new name, expecting no stream there, then the old stream is
 * tombstoned. The copies' ids derive from the originals', so a run cut short between the two
 * finds its copy (the append of the same ids is acknowledged unwritten) and finishes the tombstone.
 */
async function copyAndTombstone(store: EventStore, moves: Map<string, string>, tombstones: StreamTombstones): Promise<string[]> {
  const moved: string[] = [];
  for (const [from, to] of moves) {
    const events = await store.readStream(from);
    // Tombstoned by an earlier run (its events still show in $all until a scavenge).
    if (events.length === 0) continue;
    const copies: NewEvent[] = events.map((event) => {
      const id = copyId(event.id);
      return { id, type: event.type, data: event.data, metadata: 'eventId' in event.metadata ? { ...event.metadata, eventId: id } : event.metadata };
    });
    try {
      await store.append(to, copies, 'no_stream');
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      const there = (await store.readStream(to)).map((event) => event.id);
      if (there.join() !== copies.map((copy) => copy.id).join()) throw new MigrationRefused(`${to} already holds other events than the copy of ${from}; left as it is`);
    }
    await tombstones.tombstone(from);
    moved.push(from);
  }
  return moved;
}

/** A UUID (version 4 layout) derived from the original event's id. */
function copyId(original: string): string {
  const bytes = createHash('sha256').update(`email-stream-copy:${original}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
