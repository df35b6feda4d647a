/**
 * Snapshots of the in-memory read models (standalone mode), so a restart does not replay every
 * event: at a million members that is ~7 million events and minutes of work, against seconds to
 * load a snapshot and catch up from its checkpoint.
 *
 * A snapshot is only a cache. It is used when it was written by the same projection code (a
 * fingerprint of the sources that decide what the read models hold) and its checkpoint's event
 * is still in the store with the same id (the data directory was not replaced or restored);
 * otherwise it is ignored and the read models are rebuilt from the events. It is written to a
 * temporary file, flushed and renamed, so a crash leaves the previous one whole.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Logger } from 'pino';
import { positionFromString, positionToString, type EventStore } from '@pass/events';
import type { MemoryKeyspaceState, MemoryReadModelStore } from './memory';

const FORMAT = 1;

interface SnapshotFile {
  format: number;
  fingerprint: string;
  savedAt: string;
  state: MemoryKeyspaceState;
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
      const files = source.files ?? readdirSync(source.dir).filter((f) => /\.ts$/.test(f) && !/\.test\.ts$/.test(f) && f !== 'memory-snapshot.ts');
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

/** The snapshot in `file` and the id of its checkpoint's event (written as a small header before it). */
async function readSnapshotFile(file: string): Promise<{ snapshot: SnapshotFile; eventId: string } | { unusable: string }> {
  try {
    const bytes = await readFile(file);
    const headerLength = bytes.readUInt32BE(0);
    const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8')) as { format: number; eventId: string };
    if (header.format !== FORMAT) return { unusable: `format ${header.format}, expected ${FORMAT}` };
    return { snapshot: deserialize(bytes.subarray(4 + headerLength)) as SnapshotFile, eventId: header.eventId };
  } catch (error) {
    return { unusable: `unreadable: ${(error as Error).message}` };
  }
}

export interface ReadModelSnapshotsDeps {
  file: string;
  readModels: MemoryReadModelStore;
  eventStore: EventStore;
  logger: Logger;
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
    const state = deps.readModels.exportActive();
    const { checkpoint } = state;
    if (!fingerprint || checkpoint === null || checkpoint === savedCheckpoint) return;
    const body = serialize({ format: FORMAT, fingerprint, savedAt: new Date().toISOString(), state } satisfies SnapshotFile);
    const serialisedMs = performance.now() - started;
    const eventId = await eventIdAt(deps.eventStore, checkpoint);
    if (!eventId) {
      log.warn({ checkpoint }, 'the checkpoint has no event in the store; snapshot not written');
      return;
    }
    // The id of the checkpoint's event (which store the snapshot belongs to) goes in a small
    // header; the state was serialised before the await above.
    const header = Buffer.from(JSON.stringify({ format: FORMAT, eventId }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(header.length);
    const tmp = `${deps.file}.tmp`;
    const handle = await open(tmp, 'w');
    try {
      await handle.writev([length, header, body]);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, deps.file);
    const dir = await open(dirname(deps.file), 'r');
    await dir.sync().finally(() => dir.close());
    savedCheckpoint = checkpoint;
    log.info({ reason, checkpoint, bytes: body.length + header.length + 4, serialisedMs: Math.round(serialisedMs), ms: Math.round(performance.now() - started) }, 'read-model snapshot written');
  }

  return {
    async load() {
      if (!fingerprint || !existsSync(deps.file)) return 'none';
      const started = performance.now();
      const read = await readSnapshotFile(deps.file);
      if ('unusable' in read) return discard(read.unusable);
      const { snapshot, eventId } = read;
      if (snapshot.fingerprint !== fingerprint) return discard('the projection code changed since it was written');
      const checkpoint = snapshot.state.checkpoint;
      if (checkpoint === null) return discard('it holds no checkpoint');
      if ((await eventIdAt(deps.eventStore, checkpoint)) !== eventId) return discard('the event store does not hold the event it was taken at');
      deps.readModels.importActive(snapshot.state);
      savedCheckpoint = checkpoint;
      log.info({ checkpoint, savedAt: snapshot.savedAt, users: snapshot.state.rows.length, ms: Math.round(performance.now() - started) }, 'read models restored from snapshot');
      return 'loaded';
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
