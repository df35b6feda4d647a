import type { Logger } from 'pino';
import type { LiveNotice } from '../projections/types';
import type { Keyspace } from '../read-models/port';
import type { CountriesRecord } from '../read-models/types';
import { readTopCountries } from '../read-models/views';
import { LiveBacklog } from './coalesce';
import { liveEventsFor, type LivePublisher, type LiveReads } from './publisher';

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
  /**
   * The top countries as last read, while every batch stored since left them alone: a free point
   * or a chat message then costs no read of them (only registrations, country changes and
   * erasures move them). Forgotten whenever the keyspace may have changed otherwise (restart).
   */
  private countries: CountriesRecord | undefined;
  private readonly reads: LiveReads = {
    countries: async () => (this.countries ??= await readTopCountries(this.keyspace())),
    chat: (limit) => this.keyspace().chat(limit),
  };

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

  /**
   * The keyspace is about to be read from its stored checkpoint again (a new subscription): what
   * was stored meanwhile did not go through `afterStored`, so the countries are read afresh.
   */
  restarted(): void {
    this.countries = undefined;
  }

  /** The mode of the next catch-up batch: one flush per CATCH_UP_PUSH_MS (none without a publisher). */
  catchUpMode(): 'flush' | 'hold' {
    if (!this.publisher || performance.now() - this.pushedAt < CATCH_UP_PUSH_MS) return 'hold';
    this.pushedAt = performance.now();
    return 'flush';
  }

  /** Called for every stored batch, in order, published or not. */
  async afterStored(live: LiveNotice[], mode: PushMode): Promise<void> {
    if (live.some((notice) => notice.kind === 'mainData' && notice.countriesChanged)) this.countries = undefined;
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
      await this.publisher.publish(await liveEventsFor(notices, this.reads));
    } catch (error) {
      // The batch is stored; a missed broadcast is repaired by the next one or a reload.
      this.log.warn({ err: error }, 'live events not published');
    }
  }
}
