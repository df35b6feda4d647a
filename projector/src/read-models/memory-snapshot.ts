/**
 * Snapshots of the in-memory read models (standalone mode), so a restart loads them and catches
 * up instead of replaying every event (docs/architecture.md, "Read side"). Only a cache: used when
 * written by the same projection code (a fingerprint of its sources) and its checkpoint's event is
 * still in the store with the same id; else the read models are rebuilt from the events.
 * The file: a 4-byte length and a JSON header (format, fingerprint, the checkpoint's event id, the
 * number of parts), then each part (MemoryStatePart) as a 4-byte length and its v8 serialisation.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Logger } from 'pino';
import { positionFromString, positionToString, type EventStore } from '@pass/events';
import type { MemoryReadModelStore } from './memory';
import type { MemoryStateHead, MemoryStatePart } from './memory-state';

const FORMAT = 3;

interface SnapshotHeader {
  format: number;
  fingerprint: string;
  savedAt: string;
  /** The id of the checkpoint's event (which store the snapshot belongs to). */
  eventId: string;
  parts: number;
}

const here = import.meta.dirname;
/** Sources whose change can change what the read models hold for the same events. */
const SOURCES = [
  { dir: resolve(here, '../projections') },
  { dir: here },
  // The kernel's event shapes, which events are a user's, and the rules the projections call (cents, e-mails).
  { dir: resolve(here, '../../../events/src'), files: ['domain-events.ts', 'upcasters.ts', 'stream-events.ts', 'rules/site.ts', 'rules/members.ts'] },
];

/** A hash of the projection sources; undefined when they cannot be read (then no snapshots). */
export function projectionFingerprint(): string | undefined {
  const hash = createHash('sha256');
  hash.update(`format ${FORMAT}\n`);
  try {
    for (const source of SOURCES) {
      const files = source.files ?? readdirSync(source.dir).filter((name) => /\.ts$/.test(name) && !/\.test\.ts$/.test(name) && name !== 'memory-snapshot.ts');
      for (const file of [...files].sort()) hash.update(`${file}\n`).update(readFileSync(join(source.dir, file)));
    }
  } catch {
    return undefined;
  }
  return hash.digest('hex');
}

/** The id of the event stored at `checkpoint`, or undefined when the store has none there. */
async function eventIdAt(store: EventStore, checkpoint: string): Promise<string | undefined> {
  const position = positionFromString(checkpoint);
  const [event] = await store.readAll({ after: { commit: position.commit, prepare: position.prepare - 1n }, maxCount: 1 });
  return event && positionToString(event.position) === checkpoint ? event.id : undefined;
}

/** Reads exactly `length` bytes at the file's current position (a short read: the file is damaged). */
function readExactly(fd: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, bytes, done, length - done, null);
    if (read === 0) throw new Error(`the file ends ${length - done} bytes early`);
    done += read;
  }
  return bytes;
}

/** A length-prefixed item at the file's current position. */
const readItem = (fd: number): Buffer => readExactly(fd, readExactly(fd, 4).readUInt32BE(0));

/** The header and the head part of the snapshot open at `fd` (the position moves past them). */
function openSnapshot(fd: number): { header: SnapshotHeader; head: MemoryStateHead } | { unusable: string } {
  try {
    const header = JSON.parse(readItem(fd).toString('utf8')) as SnapshotHeader;
    if (header.format !== FORMAT) return { unusable: `format ${header.format}, expected ${FORMAT}` };
    // The head part comes first and holds the checkpoint.
    const [head] = readParts(fd, 1);
    return head?.part === 'head' ? { header, head } : { unusable: 'it does not begin with the head of the state' };
  } catch (error) {
    return { unusable: `unreadable: ${(error as Error).message}` };
  }
}

function* withHead(head: MemoryStatePart, rest: Iterable<MemoryStatePart>): Generator<MemoryStatePart> {
  yield head;
  yield* rest;
}

/** The parts after the header, read and deserialised one at a time. */
function* readParts(fd: number, count: number): Generator<MemoryStatePart> {
  for (let i = 0; i < count; i++) yield deserialize(readItem(fd)) as MemoryStatePart;
}

/**
 * Writes the header and the parts, each after its 4-byte length, to a temporary file, flushes it,
 * renames it over `file` and flushes the directory, so a crash leaves the previous file whole.
 * Returns the bytes written.
 */
async function writeSnapshotFile(file: string, header: SnapshotHeader, bodies: Buffer[]): Promise<number> {
  const items = [Buffer.from(JSON.stringify(header)), ...bodies].flatMap((item) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(item.length);
    return [length, item];
  });
  const bytes = items.reduce((sum, item) => sum + item.length, 0);
  const tmp = `${file}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writev(items);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  const dir = await open(dirname(file), 'r');
  await dir.sync().finally(() => dir.close());
  return bytes;
}

export interface ReadModelSnapshotsDeps {
  file: string;
  readModels: MemoryReadModelStore;
  eventStore: EventStore;
  logger: Logger;
  /** Entries per part of the file (default: the memory adapter's); small in tests, to write many parts. */
  partEntries?: number;
}

export type LoadOutcome = 'loaded' | 'none' | 'discarded';

export interface ReadModelSnapshots {
  /** Restores the active keyspace from the file when it is valid; call before the projector starts. */
  load(): Promise<LoadOutcome>;
  /** Writes the active keyspace (nothing when it is empty or unchanged since the last save). */
  save(reason: string): Promise<void>;
}

export function createReadModelSnapshots(deps: ReadModelSnapshotsDeps): ReadModelSnapshots {
  const log = deps.logger.child({ component: 'read-model-snapshots', file: deps.file });
  const fingerprint = projectionFingerprint();
  if (!fingerprint) log.warn('projection sources not found: read-model snapshots are off, every start replays all events');
  let savedCheckpoint: string | null = null;
  let saving: Promise<void> | undefined;

  const discard = async (why: string) => {
    log.warn({ why }, 'read-model snapshot not used; rebuilding from the events');
    await rm(deps.file, { force: true });
    return 'discarded' as const;
  };

  async function write(reason: string): Promise<void> {
    const started = performance.now();
    // Captured and serialised in one synchronous step, so no batch lands in between.
    const { checkpoint, parts } = deps.readModels.exportActive(deps.partEntries);
    if (!fingerprint || checkpoint === null || checkpoint === savedCheckpoint) return;
    const bodies = parts.map((part) => serialize(part));
    const serialisedMs = performance.now() - started;
    const eventId = await eventIdAt(deps.eventStore, checkpoint);
    if (!eventId) {
      log.warn({ checkpoint }, 'the checkpoint has no event in the store; snapshot not written');
      return;
    }
    const header: SnapshotHeader = { format: FORMAT, fingerprint, savedAt: new Date().toISOString(), eventId, parts: bodies.length };
    const bytes = await writeSnapshotFile(deps.file, header, bodies);
    savedCheckpoint = checkpoint;
    log.info({ reason, checkpoint, bytes, parts: bodies.length, serialisedMs: Math.round(serialisedMs), ms: Math.round(performance.now() - started) }, 'read-model snapshot written');
  }

  return {
    async load() {
      if (!fingerprint || !existsSync(deps.file)) return 'none';
      const started = performance.now();
      const fd = openSync(deps.file, 'r');
      try {
        const opened = openSnapshot(fd);
        if ('unusable' in opened) return await discard(opened.unusable);
        const { header, head } = opened;
        if (header.fingerprint !== fingerprint) return await discard('the projection code changed since it was written');
        const checkpoint = head.checkpoint;
        if (checkpoint === null) return await discard('it holds no checkpoint');
        if ((await eventIdAt(deps.eventStore, checkpoint)) !== header.eventId) return await discard('the event store does not hold the event it was taken at');
        let users: number;
        try {
          // A part that cannot be read throws, and nothing is restored.
          users = deps.readModels.importActive(withHead(head, readParts(fd, header.parts - 1)));
        } catch (error) {
          return await discard(`unreadable: ${(error as Error).message}`);
        }
        savedCheckpoint = checkpoint;
        log.info({ checkpoint, savedAt: header.savedAt, users, parts: header.parts, ms: Math.round(performance.now() - started) }, 'read models restored from snapshot');
        return 'loaded';
      } finally {
        closeSync(fd);
      }
    },
    save(reason) {
      // One write at a time; a save asked for during another runs after it (with newer state).
      const next = (saving ?? Promise.resolve()).then(() => write(reason)).catch((error: unknown) => log.error({ err: error }, 'read-model snapshot not written'));
      saving = next;
      void next.finally(() => {
        if (saving === next) saving = undefined;
      });
      return next;
    },
  };
}
