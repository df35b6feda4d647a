import { listenToAnnouncements, type AnnouncementListener, type AnnouncementLogger } from '@pass/events/redis';
import type { Keyspace } from './port';
import type { RedisConnection } from './redis-admin';
import { changesChannel } from './redis/keys';

/** A keyspace's checkpoint, as a reader uses it to tell whether anything was projected since. */
export type CheckpointOf = (keyspace: Keyspace) => Promise<string | null>;

/** Asks the store every time (the memory store, or a reader that watches nothing). */
export const readCheckpoint: CheckpointOf = (keyspace) => keyspace.checkpoint();

/**
 * The checkpoints of the keyspaces this process has read, kept until the apply script announces
 * that one moved, so a body rebuilt per checkpoint (the country top 5, the home figures) is
 * answered without a round trip to Redis while nothing is projected. While unsubscribed (at
 * start, or after the subscriber connection dropped) it keeps nothing and every call reads Redis;
 * a read in flight when its keyspace is announced is answered but not kept.
 */
export class WatchedCheckpoints {
  private readonly known = new Map<string, string | null>();
  /** Reads in flight by keyspace; an announcement removes the mark, so their answer is not kept. */
  private readonly reading = new Map<string, symbol>();
  private on = false;
  private listener: AnnouncementListener | undefined;
  /** Checkpoints read from the store, and batches heard announced (for tests and operators). */
  reads = 0;
  announcements = 0;

  /** Subscribes to `root`'s announcements; goes on unsubscribed (reading every time) if Redis is not there yet. */
  static async watch(redis: RedisConnection, root: string, logger: AnnouncementLogger): Promise<WatchedCheckpoints> {
    const watched = new WatchedCheckpoints();
    watched.listener = await listenToAnnouncements(redis, {
      channel: changesChannel(root),
      connectionName: 'query-api:read-model-changes',
      logger,
      onMessage: (keyspaceId) => watched.changed(keyspaceId),
      onHeard: () => (watched.heard = true),
      onUnheard: () => (watched.heard = false),
      says: {
        heard: 'read-model changes heard: shared bodies are rebuilt when the projector announces a batch',
        unheard: 'read-model changes unheard (Redis subscriber disconnected): every shared body checks the checkpoint in Redis until they are heard again',
      },
    });
    return watched;
  }

  get heard(): boolean {
    return this.on;
  }

  /** Off: everything kept is dropped, and every call reads the store until it is on again. */
  set heard(value: boolean) {
    if (!value) this.forgetAll();
    this.on = value;
  }

  /** Redis's id of the subscriber connection, when watching (CLIENT KILL ID in tests). */
  get clientId(): number | undefined {
    return this.listener?.clientId;
  }

  readonly checkpointOf: CheckpointOf = async (keyspace) => {
    const { id } = keyspace;
    if (this.on && this.known.has(id)) return this.known.get(id)!;
    const mark = Symbol(id);
    this.reading.set(id, mark);
    this.reads++;
    try {
      const checkpoint = await keyspace.checkpoint();
      if (this.on && this.reading.get(id) === mark) this.known.set(id, checkpoint);
      return checkpoint;
    } finally {
      if (this.reading.get(id) === mark) this.reading.delete(id);
    }
  };

  /** A batch was applied to this keyspace: its checkpoint is read again next time. */
  changed(keyspaceId: string): void {
    this.announcements++;
    this.known.delete(keyspaceId);
    this.reading.delete(keyspaceId);
  }

  async close(): Promise<void> {
    this.heard = false;
    await this.listener?.close();
  }

  private forgetAll(): void {
    this.known.clear();
    this.reading.clear();
  }
}
