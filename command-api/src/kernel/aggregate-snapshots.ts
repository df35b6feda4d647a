/**
 * Snapshots of long streams' decision state, so loading them does not replay every event (the
 * `passes-pool` stream gains two per claim: docs/architecture.md, "Command side"). A snapshot is
 * a cache: the state at a revision plus the id of the event stored there, used only while that
 * event is still stored with the same id and the codec's version matches, else the stream is
 * replayed. Losing one costs time, never correctness, so it lives beside the store (a file in
 * standalone, Redis when distributed), not in it.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

/** How a decider's state becomes plain JSON and back; bump `version` when the state's shape changes. */
export interface SnapshotCodec<S> {
  version: number;
  encode(state: S): unknown;
  decode(data: unknown): S;
  /** Take a snapshot after this many events since the last one (default 1,000). */
  every?: number;
}

export interface StoredSnapshot {
  revision: number;
  eventId: string;
  version: number;
  data: unknown;
}

export interface AggregateSnapshotStore {
  load(streamId: string): Promise<StoredSnapshot | undefined>;
  save(streamId: string, snapshot: StoredSnapshot): Promise<void>;
}

/** One JSON file per stream, written whole and renamed into place (standalone). */
export class FileAggregateSnapshots implements AggregateSnapshotStore {
  constructor(private readonly dir: string) {}

  private file(streamId: string): string {
    return join(this.dir, `${encodeURIComponent(streamId)}.json`);
  }

  async load(streamId: string): Promise<StoredSnapshot | undefined> {
    try {
      return JSON.parse(await readFile(this.file(streamId), 'utf8')) as StoredSnapshot;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async save(streamId: string, snapshot: StoredSnapshot): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Own temporary name: two handlers in one process (tests) may save the same stream at once.
    const tmp = `${this.file(streamId)}.${randomUUID()}.tmp`;
    await writeFile(tmp, JSON.stringify(snapshot));
    await rename(tmp, this.file(streamId));
  }
}

/** One Redis key per stream, shared by every command-api instance (distributed). */
export class RedisAggregateSnapshots implements AggregateSnapshotStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async load(streamId: string): Promise<StoredSnapshot | undefined> {
    const text = await this.redis.get(`${this.prefix}${streamId}`);
    return text === null ? undefined : (JSON.parse(text) as StoredSnapshot);
  }

  async save(streamId: string, snapshot: StoredSnapshot): Promise<void> {
    await this.redis.set(`${this.prefix}${streamId}`, JSON.stringify(snapshot));
  }
}
