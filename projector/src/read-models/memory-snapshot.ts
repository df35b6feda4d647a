/**
 * Snapshots of the in-memory read models (standalone mode), so a restart loads them and catches
 * up instead of replaying every event (docs/architecture.md, "Read side"). Only a cache: used when
 * it proves it was written by this installation (its seal), by the same projection code (a
 * fingerprint of its sources), and its checkpoint's event is still in the store with the same id;
 * else it is removed and the read models are rebuilt from the events.
 * The file: the header (JSON: format, fingerprint, the checkpoint's event id, the number of parts),
 * then each part (MemoryStatePart, v8-serialised), each item as a 4-byte length, its bytes and its
 * tag; then a closing tag. Each tag is an HMAC-SHA-256 over the previous tag, the item's index,
 * length and bytes, keyed by the installation's secret (SnapshotSeal), so it vouches for
 * everything before it and the closing tag for the whole file: an edited, reordered, cut or
 * foreign file fails to verify, and no item is parsed before its tag has verified.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Logger } from 'pino';
import { positionFromString, positionToString, type EventStore } from '@pass/events';
import type { MemoryReadModelStore } from './memory';
import type { MemoryStateHead, MemoryStatePart } from './memory-state';

/** 6: the search index's tokens and rows follow the sets (text-index.ts). */
const FORMAT = 6;
const TAG_BYTES = 32;

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
  // The kernel's event shapes, which events are a user's, the rules the projections call (cents,
  // e-mails, days) and the country list the card upcaster reads.
  { dir: resolve(here, '../../../events/src'), files: ['domain-events.ts', 'upcasters.ts', 'countries.ts', 'stream-events.ts', 'rules/site.ts', 'rules/members.ts', 'rules/progress.ts'] },
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

/**
 * The chain of tags that seals a snapshot (one per file, written or read in order). The key is
 * derived from the installation's secret for this use alone (HKDF), so it signs nothing else.
 */
export class SnapshotSeal {
  private readonly key: Buffer;
  private previous = Buffer.alloc(TAG_BYTES);
  private items = 0;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'pass read-model snapshot', 'hmac-sha256 seal v1', 32));
  }

  /** The next item's tag. */
  tag(item: Buffer): Buffer {
    const position = Buffer.alloc(8);
    position.writeUInt32BE(this.items++, 0);
    position.writeUInt32BE(item.length, 4);
    this.previous = createHmac('sha256', this.key).update(this.previous).update(position).update(item).digest();
    return this.previous;
  }

  /** The closing tag, over every item before it and their number. */
  close(): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.items);
    return createHmac('sha256', this.key).update(this.previous).update('end').update(count).digest();
  }
}

/** The seal does not verify: the file was changed, cut, or sealed with another secret. */
class BrokenSeal extends Error {}

/** Reads a sealed file's items in order, each checked against its tag before it is handed out. */
class SealedReader {
  private at = 0;
  private items = 0;
  private readonly size: number;
  private readonly seal: SnapshotSeal;

  constructor(
    private readonly fd: number,
    secret: string,
  ) {
    this.size = fstatSync(fd).size;
    this.seal = new SnapshotSeal(secret);
  }

  /** The next item's bytes, once its tag has verified. */
  item(): Buffer {
    const index = this.items++;
    const length = this.read(4).readUInt32BE(0);
    // A length past the end is damage: nothing that large is allocated.
    if (length + TAG_BYTES > this.size - this.at) throw new BrokenSeal(`item ${index} runs past the end of the file`);
    const item = this.read(length);
    if (!timingSafeEqual(this.read(TAG_BYTES), this.seal.tag(item))) throw new BrokenSeal(`item ${index} does not match its seal`);
    return item;
  }

  /** Checks the closing tag, and that nothing follows it. */
  close(): void {
    if (!timingSafeEqual(this.read(TAG_BYTES), this.seal.close()) || this.at !== this.size) throw new BrokenSeal('the closing seal does not verify');
  }

  /** Exactly `length` bytes at the current position (a short read: the file is cut). */
  private read(length: number): Buffer {
    if (length > this.size - this.at) throw new BrokenSeal('the file ends early');
    const bytes = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = readSync(this.fd, bytes, done, length - done, this.at + done);
      if (read === 0) throw new BrokenSeal('the file ends early');
      done += read;
    }
    this.at += length;
    return bytes;
  }
}

/** The header and the head part of the snapshot open in `reader` (which moves past them). */
function openSnapshot(reader: SealedReader): { header: SnapshotHeader; head: MemoryStateHead } | { unusable: string } {
  try {
    const header = JSON.parse(reader.item().toString('utf8')) as SnapshotHeader;
    if (header.format !== FORMAT) return { unusable: `format ${header.format}, expected ${FORMAT}` };
    // The head part comes first and holds the checkpoint.
    const head = deserialize(reader.item()) as MemoryStatePart;
    return head.part === 'head' ? { header, head } : { unusable: 'it does not begin with the head of the state' };
  } catch (error) {
    return { unusable: unusable(error) };
  }
}

/** Why a file that failed to read is not used (never its contents). */
const unusable = (error: unknown): string => (error instanceof BrokenSeal ? `its seal does not verify: ${error.message}` : 'unreadable');

function* withHead(head: MemoryStatePart, rest: Iterable<MemoryStatePart>): Generator<MemoryStatePart> {
  yield head;
  yield* rest;
}

/**
 * The parts after the head, read, verified and deserialised one at a time, then the closing
 * seal: its failure throws before the reader (importActive) replaces anything.
 */
function* readParts(reader: SealedReader, count: number): Generator<MemoryStatePart> {
  for (let i = 0; i < count; i++) yield deserialize(reader.item()) as MemoryStatePart;
  reader.close();
}

/**
 * Writes the header and the parts, each after its 4-byte length and before its tag, then the
 * closing tag, to a temporary file, flushes it, renames it over `file` and flushes the
 * directory, so a crash leaves the previous file whole. Returns the bytes written.
 */
async function writeSnapshotFile(file: string, secret: string, header: SnapshotHeader, bodies: Buffer[]): Promise<number> {
  const seal = new SnapshotSeal(secret);
  const items = [Buffer.from(JSON.stringify(header)), ...bodies].flatMap((item) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(item.length);
    return [length, item, seal.tag(item)];
  });
  items.push(seal.close());
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
  /**
   * The installation's secret, which seals the file (a key derived from it for this use alone);
   * without one there are no snapshots.
   */
  secret: string | undefined;
  /** Entries per part of the file (default: the memory adapter's); small in tests, to write many parts. */
  partEntries?: number;
}

export type LoadOutcome = 'loaded' | 'none' | 'discarded';

export interface ReadModelSnapshots {
  /** Restores the active keyspace from the file when it is valid; call before the projector starts. */
  load(): Promise<LoadOutcome>;
  /** Writes the active keyspace (nothing when it is empty or unchanged since the last save). */
  save(reason: string): Promise<void>;
  /**
   * Replaces the file with the active keyspace even when its checkpoint is the one last saved
   * (an admin rebuild replaced the read models): the old file goes first, so a failed write
   * leaves none for the next start to restore.
   */
  replace(reason: string): Promise<void>;
}

export function createReadModelSnapshots(deps: ReadModelSnapshotsDeps): ReadModelSnapshots {
  const log = deps.logger.child({ component: 'read-model-snapshots', file: deps.file });
  const fingerprint = projectionFingerprint();
  const { secret } = deps;
  if (!fingerprint) log.warn('projection sources not found: read-model snapshots are off, every start replays all events');
  if (!secret) log.warn('no installation secret to seal them with: read-model snapshots are off, every start replays all events');
  let savedCheckpoint: string | null = null;
  let saving: Promise<void> | undefined;

  const discard = async (why: string) => {
    log.warn({ why }, 'read-model snapshot not used; rebuilding from the events');
    await rm(deps.file, { force: true });
    return 'discarded' as const;
  };

  async function write(reason: string, always: boolean): Promise<void> {
    const started = performance.now();
    // Captured and serialised in one synchronous step, so no batch lands in between.
    const { checkpoint, parts } = deps.readModels.exportActive(deps.partEntries);
    if (!fingerprint || !secret || checkpoint === null || (checkpoint === savedCheckpoint && !always)) return;
    const bodies = parts.map((part) => serialize(part));
    const serialisedMs = performance.now() - started;
    const eventId = await eventIdAt(deps.eventStore, checkpoint);
    if (!eventId) {
      log.warn({ checkpoint }, 'the checkpoint has no event in the store; snapshot not written');
      return;
    }
    const header: SnapshotHeader = { format: FORMAT, fingerprint, savedAt: new Date().toISOString(), eventId, parts: bodies.length };
    const bytes = await writeSnapshotFile(deps.file, secret, header, bodies);
    savedCheckpoint = checkpoint;
    log.info({ reason, checkpoint, bytes, parts: bodies.length, serialisedMs: Math.round(serialisedMs), ms: Math.round(performance.now() - started) }, 'read-model snapshot written');
  }

  /** One write at a time; one asked for during another runs after it (with newer state). */
  function queue(run: () => Promise<void>): Promise<void> {
    const next = (saving ?? Promise.resolve()).then(run).catch((error: unknown) => log.error({ err: error }, 'read-model snapshot not written'));
    saving = next;
    void next.finally(() => {
      if (saving === next) saving = undefined;
    });
    return next;
  }

  return {
    async load() {
      if (!fingerprint || !secret || !existsSync(deps.file)) return 'none';
      const started = performance.now();
      const fd = openSync(deps.file, 'r');
      try {
        const reader = new SealedReader(fd, secret);
        const opened = openSnapshot(reader);
        if ('unusable' in opened) return await discard(opened.unusable);
        const { header, head } = opened;
        if (header.fingerprint !== fingerprint) return await discard('the projection code changed since it was written');
        const checkpoint = head.checkpoint;
        if (checkpoint === null) return await discard('it holds no checkpoint');
        if ((await eventIdAt(deps.eventStore, checkpoint)) !== header.eventId) return await discard('the event store does not hold the event it was taken at');
        let users: number;
        try {
          // A part that cannot be read or verified, or a closing seal that fails, throws, and nothing is restored.
          users = deps.readModels.importActive(withHead(head, readParts(reader, header.parts - 1)));
        } catch (error) {
          return await discard(unusable(error));
        }
        savedCheckpoint = checkpoint;
        log.info({ checkpoint, savedAt: header.savedAt, users, parts: header.parts, ms: Math.round(performance.now() - started) }, 'read models restored from snapshot');
        return 'loaded';
      } finally {
        closeSync(fd);
      }
    },
    save: (reason) => queue(() => write(reason, false)),
    replace: (reason) =>
      queue(async () => {
        await rm(deps.file, { force: true });
        await write(reason, true);
      }),
  };
}
