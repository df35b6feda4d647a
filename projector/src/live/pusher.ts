import type { Logger } from 'pino';
import type { LiveNotice } from '../projections/batch';
import type { Keyspace } from '../read-models/port';
import { LiveBacklog } from './coalesce';
import { liveEventsFor, type LivePublisher } from './publisher';

/**
 * While catching up, browsers hear the coalesced state at most this often instead of after
 * every batch: each push waits for its batch to be stored (no overlap with the next one), and
 * intermediate figures are of no use to anyone.
 */
export const CATCH_UP_PUSH_MS = 250;

/**
 * What a stored batch does with its live events: push them now ('batch', live), hold them back
 * ('hold', catching up) or push them with what was held back ('flush').
 */
export type PushMode = 'batch' | 'hold' | 'flush';

/** A projector's live events: pushed after their batch is stored, or held back and coalesced while it catches up. */
export class LivePusher {
  private readonly backlog = new LiveBacklog();
  private pushedAt = -Infinity;

  constructor(
    private publisher: LivePublisher | undefined,
    private readonly keyspace: () => Keyspace,
    private readonly log: Logger,
  ) {}

  setPublisher(publisher: LivePublisher | undefined): void {
    this.publisher = publisher;
  }

  /** Nothing held back. */
  get quiet(): boolean {
    return this.backlog.empty;
  }

  /** The mode of the next catch-up batch: one flush per CATCH_UP_PUSH_MS (none without a publisher). */
  catchUpMode(): 'flush' | 'hold' {
    if (!this.publisher || performance.now() - this.pushedAt < CATCH_UP_PUSH_MS) return 'hold';
    this.pushedAt = performance.now();
    return 'flush';
  }

  async afterStored(live: LiveNotice[], mode: PushMode): Promise<void> {
    if (!this.publisher) return;
    if (mode === 'batch' && this.backlog.empty) return this.publish(live);
    this.backlog.add(live);
    if (mode !== 'hold') await this.publish(this.backlog.take());
  }

  /** Pushes what catch-up batches held back; the keyspace must be quiet (nothing in flight). */
  async pushBacklog(): Promise<void> {
    if (!this.backlog.empty) await this.publish(this.backlog.take());
  }

  private async publish(notices: LiveNotice[]): Promise<void> {
    if (!this.publisher || notices.length === 0) return;
    try {
      await this.publisher.publish(await liveEventsFor(notices, this.keyspace()));
    } catch (error) {
      // The batch is stored; a missed broadcast is repaired by the next one or a reload.
      this.log.warn({ err: error }, 'live events not published');
    }
  }
}
