import type { EventStore } from '@pass/events';
import type { Logger } from 'pino';
import type { AggregateSnapshotStore, SnapshotCodec } from './aggregate-snapshots';
import type { StreamState } from './state-cache';

/**
 * When a long stream's state is read from a snapshot and when one is taken (aggregate-snapshots.ts):
 * only for deciders with a codec (`Decider.snapshot`), loaded only when the event it was taken at is still stored
 * with the same id, saved in the background every `codec.every` events (default 1,000).
 */
export class SnapshotPolicy {
  /** Revision of the last snapshot saved or loaded per stream, and saves in flight. */
  private readonly takenAt = new Map<string, number>();
  private readonly saving = new Set<string>();

  constructor(
    private readonly store: EventStore,
    private readonly snapshots: AggregateSnapshotStore | undefined,
    private readonly logger: Logger,
  ) {}

  /** The stream's snapshot when it is usable (same codec version, its event still stored); else undefined. */
  async load<S>(codec: SnapshotCodec<S> | undefined, streamId: string): Promise<StreamState<S> | undefined> {
    if (!codec || !this.snapshots) return undefined;
    try {
      const snapshot = await this.snapshots.load(streamId);
      if (!snapshot || snapshot.version !== codec.version) return undefined;
      const [at] = await this.store.readStream(streamId, { fromRevision: snapshot.revision, maxCount: 1 });
      if (at?.id !== snapshot.eventId) {
        this.logger.warn({ streamId, revision: snapshot.revision }, 'aggregate snapshot not taken from this event store; replaying the stream');
        return undefined;
      }
      this.takenAt.set(streamId, snapshot.revision);
      return { state: codec.decode(snapshot.data), revision: snapshot.revision };
    } catch (error) {
      this.logger.warn({ err: error, streamId }, 'aggregate snapshot unreadable; replaying the stream');
      return undefined;
    }
  }

  /** Saves a snapshot in the background once enough events have passed since the last one. */
  maybeSave<S>(codec: SnapshotCodec<S> | undefined, streamId: string, value: StreamState<S>): void {
    const snapshots = this.snapshots;
    if (!codec || !snapshots || this.saving.has(streamId)) return;
    if (value.revision - (this.takenAt.get(streamId) ?? -1) < (codec.every ?? 1_000)) return;
    this.saving.add(streamId);
    // States are immutable (evolve returns a new one), so this one stays as it is meanwhile.
    void (async () => {
      const [at] = await this.store.readStream(streamId, { fromRevision: value.revision, maxCount: 1 });
      if (!at) return;
      await snapshots.save(streamId, { revision: value.revision, eventId: at.id, version: codec.version, data: codec.encode(value.state) });
      this.takenAt.set(streamId, value.revision);
    })()
      .catch((error: unknown) => this.logger.warn({ err: error, streamId }, 'aggregate snapshot not saved'))
      .finally(() => this.saving.delete(streamId));
  }
}
