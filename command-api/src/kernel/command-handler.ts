import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  WrongExpectedRevisionError,
  eventSchemaVersions,
  toDomainEvent,
  type CommandContext,
  type CommandLogLine,
  type DomainEvent,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '@pass/events';
import type { Logger } from 'pino';
import type { AggregateSnapshotStore } from './aggregate-snapshots';
import type { Decider } from './decider';
import { DomainError } from '@pass/events';

export interface CommandHandlerOptions {
  eventStore: EventStore;
  logger: Logger;
  /** Streams whose state is kept in memory (least recently used ones are dropped). */
  cacheSize?: number;
  /** Re-decisions after a revision conflict before giving up. */
  maxRetries?: number;
  /** Where deciders with a snapshot codec keep their snapshots; none: always replay. */
  snapshots?: AggregateSnapshotStore;
}

export interface Handled<S, E> {
  events: E[];
  state: S;
  /** Revision of the stream's last event after the command (-1: the stream does not exist). */
  revision: number;
}

interface Cached {
  decider: string;
  state: unknown;
  revision: number;
}

type AnyCommand = { type: string; now: Date };

/** The event metadata of DESIGN §3 for one new event. */
export function newEvent(event: DomainEvent, ctx: CommandContext): NewEvent {
  const eventId = randomUUID();
  const metadata: EventMetadata = {
    eventId,
    correlationId: ctx.correlationId,
    causationId: ctx.causationId,
    actor: ctx.actor,
    schemaVersion: eventSchemaVersions[event.type],
    occurredAt: ctx.now.toISOString(),
  };
  return { id: eventId, type: event.type, data: event.data, metadata };
}

/** A stored event in its current shape (upcast and validated). */
export function readDomainEvent(recorded: RecordedEvent): DomainEvent {
  const version = typeof recorded.metadata.schemaVersion === 'number' ? recorded.metadata.schemaVersion : 1;
  return toDomainEvent(recorded.type, recorded.data, version);
}

export class CommandRejectedByConflicts extends Error {
  constructor(streamId: string, attempts: number) {
    super(`Stream "${streamId}" kept changing; gave up after ${attempts} attempts`);
    this.name = 'CommandRejectedByConflicts';
  }
}

interface Queued {
  command: AnyCommand;
  ctx: CommandContext;
  enqueuedAt: number;
  resolve: (handled: Handled<unknown, DomainEvent>) => void;
  reject: (error: unknown) => void;
}

/** From queued to now, in ms with two decimals, as a command's log line shows it. */
const msSinceQueued = (item: Queued): number => Math.round((performance.now() - item.enqueuedAt) * 100) / 100;

interface StreamQueue {
  decider: Decider<AnyCommand, unknown, DomainEvent>;
  waiting: Queued[];
  draining: boolean;
}

type Outcome = { item: Queued; events: DomainEvent[]; state: unknown; eventsBefore: number } | { item: Queued; error: unknown };

/** Commands decided together and appended in one write when they queue up on one stream. */
const MAX_BATCH = 64;

/**
 * Load → decide → append with the expected revision (DESIGN §3), with what makes hot commands
 * cheap:
 * - commands on one stream queue up in this process, so they never conflict with each other;
 *   commands that arrived while an append was in flight are decided one after another on the
 *   evolving state and appended together in one write (a refused one is answered on its own and
 *   appends nothing). That is what keeps the single `passes-pool` stream fast under many claims;
 * - the state and revision of recently used streams stay in memory, and a command decides on
 *   them without reading: the append's expected revision proves the state was current. When
 *   another process wrote meanwhile the append conflicts, and only the newer events are read
 *   before deciding again (bounded retries);
 * - a refusal decided on cached state is re-checked on freshly read state before it is
 *   reported, so a stale cache never refuses a command the stream would accept.
 */
export class CommandHandler {
  /** The store it appends to (reads that are not decisions: a retried chat message's first answer). */
  readonly store: EventStore;
  private readonly logger: Logger;
  private readonly cacheSize: number;
  private readonly maxRetries: number;
  private readonly cache = new Map<string, Cached>();
  private readonly queues = new Map<string, StreamQueue>();
  private readonly snapshots: AggregateSnapshotStore | undefined;
  /** Revision of the last snapshot saved or loaded per stream, and saves in flight. */
  private readonly snapshotAt = new Map<string, number>();
  private readonly snapshotting = new Set<string>();

  constructor(options: CommandHandlerOptions) {
    this.snapshots = options.snapshots;
    this.store = options.eventStore;
    this.logger = options.logger;
    this.cacheSize = options.cacheSize ?? 50_000;
    this.maxRetries = options.maxRetries ?? 8;
  }

  /** Decides `command` on the stream and appends what it decided. Throws the decider's DomainError on refusal. */
  handle<C extends AnyCommand, S, E extends DomainEvent>(
    decider: Decider<C, S, E>,
    streamId: string,
    command: C,
    ctx: CommandContext,
  ): Promise<Handled<S, E>> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(streamId);
      if (!queue) {
        queue = { decider: decider as unknown as Decider<AnyCommand, unknown, DomainEvent>, waiting: [], draining: false };
        this.queues.set(streamId, queue);
      }
      queue.waiting.push({ command, ctx, enqueuedAt: performance.now(), resolve: resolve as Queued['resolve'], reject });
      if (!queue.draining) void this.drain(streamId, queue);
    });
  }

  /** Current state of a stream (reads only events newer than the cached revision). */
  async load<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string): Promise<{ state: S; revision: number }> {
    const cached = this.cached(decider, streamId);
    const fresh = await this.catchUp(decider, streamId, cached);
    this.remember(decider, streamId, fresh);
    return fresh;
  }

  /**
   * The cached state of a stream, without reading the store (undefined when not cached). It may
   * be behind the store: only for shortcuts that the decider would confirm anyway.
   */
  peek<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string): S | undefined {
    const hit = this.cache.get(streamId);
    return hit && hit.decider === decider.name ? (hit.state as S) : undefined;
  }

  /** Forgets every cached state (tests that simulate a restart). */
  clearCache(): void {
    this.cache.clear();
  }

  private async drain(streamId: string, queue: StreamQueue): Promise<void> {
    queue.draining = true;
    try {
      while (queue.waiting.length > 0) {
        const batch = queue.waiting.splice(0, MAX_BATCH);
        try {
          await this.runBatch(queue.decider, streamId, batch);
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      queue.draining = false;
      if (this.queues.get(streamId) === queue && queue.waiting.length === 0) this.queues.delete(streamId);
    }
  }

  /** A decided command: on its request's access line when it has one, else a line of its own. */
  private decided(item: Queued, streamId: string, outcome: CommandLogLine['outcome'], extra: Pick<CommandLogLine, 'attempts' | 'code' | 'events' | 'batch'>): void {
    const line: CommandLogLine = { command: item.command.type, stream: streamId, outcome, ms: msSinceQueued(item), ...extra };
    if (!item.ctx.report?.(line)) this.logger.info({ ...line, correlationId: item.ctx.correlationId }, 'command');
  }

  private failed(item: Queued, streamId: string, err: unknown, attempts: number): void {
    this.logger.info({ command: item.command.type, stream: streamId, outcome: 'failed', ms: msSinceQueued(item), correlationId: item.ctx.correlationId, err, attempts }, 'command');
  }

  private async runBatch(decider: Decider<AnyCommand, unknown, DomainEvent>, streamId: string, batch: Queued[]): Promise<void> {
    let current = this.cached(decider, streamId);
    let fresh = false;
    if (current.revision < 0) {
      current = await this.catchUp(decider, streamId, current);
      fresh = true;
    }
    for (let attempt = 1; ; attempt++) {
      const outcomes = this.decideAll(decider, batch, current.state);
      const refusedOnStale = !fresh && outcomes.some((o) => 'error' in o && o.error instanceof DomainError);
      if (refusedOnStale) {
        current = await this.catchUp(decider, streamId, current);
        fresh = true;
        this.remember(decider, streamId, current);
        continue;
      }
      const accepted = outcomes.filter((o): o is Extract<Outcome, { events: DomainEvent[] }> => 'events' in o);
      const newEvents = accepted.flatMap((o) => o.events.map((e) => newEvent(e, o.item.ctx)));
      const settle = (revision: number, total: number) => {
        for (const o of outcomes) {
          if ('error' in o) {
            const error = o.error;
            if (error instanceof DomainError) this.decided(o.item, streamId, 'rejected', { code: error.code, attempts: attempt });
            else this.failed(o.item, streamId, error, attempt);
            o.item.reject(error);
          } else {
            // Revision right after this command's own events.
            const own = revision - (total - o.eventsBefore - o.events.length);
            this.decided(o.item, streamId, o.events.length ? 'accepted' : 'unchanged', { attempts: attempt, events: o.events.length, batch: batch.length });
            o.item.resolve({ events: o.events, state: o.state, revision: own });
          }
        }
      };
      if (newEvents.length === 0) {
        settle(current.revision, 0);
        return;
      }
      try {
        const result = await this.store.append(streamId, newEvents, current.revision < 0 ? 'no_stream' : current.revision);
        const last = accepted.at(-1)!;
        this.remember(decider, streamId, { state: last.state, revision: result.nextExpectedRevision });
        settle(result.nextExpectedRevision, newEvents.length);
        return;
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError && attempt <= this.maxRetries) {
          current = await this.catchUp(decider, streamId, current);
          fresh = true;
          continue;
        }
        const failure = error instanceof WrongExpectedRevisionError ? new CommandRejectedByConflicts(streamId, attempt) : error;
        for (const o of outcomes) {
          if ('error' in o) o.item.reject(o.error);
          else {
            this.failed(o.item, streamId, failure, attempt);
            o.item.reject(failure);
          }
        }
        return;
      }
    }
  }

  /** Decides each queued command on the state the previous ones leave. */
  private decideAll(decider: Decider<AnyCommand, unknown, DomainEvent>, batch: Queued[], initial: unknown): Outcome[] {
    let state = initial;
    let eventsBefore = 0;
    return batch.map((item): Outcome => {
      try {
        const events = decider.decide(item.command, state);
        for (const event of events) state = decider.evolve(state, event);
        const outcome = { item, events, state, eventsBefore };
        eventsBefore += events.length;
        return outcome;
      } catch (error) {
        return { item, error };
      }
    });
  }

  private cached<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string): { state: S; revision: number } {
    const hit = this.cache.get(streamId);
    if (hit && hit.decider === decider.name) {
      // Re-insert: Map order is the LRU order.
      this.cache.delete(streamId);
      this.cache.set(streamId, hit);
      return { state: hit.state as S, revision: hit.revision };
    }
    return { state: decider.initialState(), revision: -1 };
  }

  private remember<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string, value: { state: S; revision: number }): void {
    if (value.revision < 0) return;
    const existing = this.cache.get(streamId);
    if (existing && existing.decider === decider.name && existing.revision > value.revision) return;
    this.cache.delete(streamId);
    this.cache.set(streamId, { decider: decider.name, state: value.state, revision: value.revision });
    this.maybeSnapshot(decider, streamId, value);
    if (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }

  private async catchUp<C extends AnyCommand, S, E extends DomainEvent>(
    decider: Decider<C, S, E>,
    streamId: string,
    from: { state: S; revision: number },
  ): Promise<{ state: S; revision: number }> {
    if (from.revision < 0) from = (await this.fromSnapshot(decider, streamId)) ?? from;
    const recorded = await this.store.readStream(streamId, { fromRevision: from.revision + 1 });
    let { state, revision } = from;
    for (const r of recorded) {
      const event = readDomainEvent(r);
      if (!decider.isEvent(event)) throw new Error(`Stream "${streamId}" holds ${event.type}, which is not a ${decider.name} event`);
      state = decider.evolve(state, event);
      revision = r.revision;
    }
    return { state, revision };
  }

  /** The stream's snapshot when it is usable (same codec version, its event still stored); else undefined. */
  private async fromSnapshot<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string): Promise<{ state: S; revision: number } | undefined> {
    const codec = decider.snapshot;
    if (!codec || !this.snapshots) return undefined;
    try {
      const snapshot = await this.snapshots.load(streamId);
      if (!snapshot || snapshot.version !== codec.version) return undefined;
      const [at] = await this.store.readStream(streamId, { fromRevision: snapshot.revision, maxCount: 1 });
      if (at?.id !== snapshot.eventId) {
        this.logger.warn({ streamId, revision: snapshot.revision }, 'aggregate snapshot not taken from this event store; replaying the stream');
        return undefined;
      }
      this.snapshotAt.set(streamId, snapshot.revision);
      return { state: codec.decode(snapshot.data), revision: snapshot.revision };
    } catch (error) {
      this.logger.warn({ err: error, streamId }, 'aggregate snapshot unreadable; replaying the stream');
      return undefined;
    }
  }

  /** Saves a snapshot in the background once enough events have passed since the last one. */
  private maybeSnapshot<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string, value: { state: S; revision: number }): void {
    const codec = decider.snapshot;
    const store = this.snapshots;
    if (!codec || !store || this.snapshotting.has(streamId)) return;
    if (value.revision - (this.snapshotAt.get(streamId) ?? -1) < (codec.every ?? 1_000)) return;
    this.snapshotting.add(streamId);
    // States are immutable (evolve returns a new one), so this one stays as it is meanwhile.
    void (async () => {
      const [at] = await this.store.readStream(streamId, { fromRevision: value.revision, maxCount: 1 });
      if (!at) return;
      await store.save(streamId, { revision: value.revision, eventId: at.id, version: codec.version, data: codec.encode(value.state) });
      this.snapshotAt.set(streamId, value.revision);
    })()
      .catch((error: unknown) => this.logger.warn({ err: error, streamId }, 'aggregate snapshot not saved'))
      .finally(() => this.snapshotting.delete(streamId));
  }
}
