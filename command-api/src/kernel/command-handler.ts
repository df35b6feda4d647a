import { performance } from 'node:perf_hooks';
import { WrongExpectedRevisionError, toCurrentEvent, type CommandContext, type DomainEvent, type EventStore } from '@pass/events';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { AggregateSnapshotStore } from './aggregate-snapshots';
import { answerBatch, decideInTurn, failBatch, isAccepted, isRefusal, type AnyCommand, type AnyDecider, type Handled, type Queued } from './batch';
import { CommandLog } from './command-log';
import { commandMetrics } from './command-metrics';
import type { Decider } from './decider';
import { newEvent } from './new-event';
import { SnapshotPolicy } from './snapshot-policy';
import { StateCache, type StreamState } from './state-cache';
import { StreamQueues } from './stream-queues';

export type { Handled } from './batch';

export interface CommandHandlerOptions {
  eventStore: EventStore;
  logger: Logger;
  /** Streams whose state is kept in memory (least recently used ones are dropped). */
  cacheSize?: number;
  /** Re-decisions after a revision conflict before giving up. */
  maxRetries?: number;
  /** Where deciders with a snapshot codec keep their snapshots; none: always replay. */
  snapshots?: AggregateSnapshotStore;
  /** The process's Prometheus registry: commands by type and outcome, and their latency. */
  metrics?: Registry;
  /** Events read at a time when bringing a stream's state up to date. Default STREAM_READ_PAGE. */
  readPage?: number;
}

/**
 * A member's stream fits in one page; the passes pool's, long on a large site, is read in many and
 * never held whole (docs/benchmarks/history/cold-start.md, "First start within 2 GiB").
 */
const STREAM_READ_PAGE = 5_000;

export class CommandRejectedByConflicts extends Error {
  constructor(streamId: string, attempts: number) {
    super(`Stream "${streamId}" kept changing; gave up after ${attempts} attempts`);
    this.name = 'CommandRejectedByConflicts';
  }
}

/**
 * Load → decide → append with the expected revision (docs/architecture.md, "Command side"), made
 * cheap for hot commands by a queue per stream (stream-queues.ts; what queued meanwhile is decided
 * in order and appended in one write, batch.ts), recent streams' state (state-cache.ts; the
 * expected revision proves it current), snapshots of long streams (snapshot-policy.ts) and one log
 * line per command (command-log.ts). A refusal decided on cached state is re-checked on freshly
 * read state, so a stale cache never refuses a command the stream would accept.
 */
export class CommandHandler {
  /** The store it appends to (reads that are not decisions: a retried chat message's first answer). */
  readonly store: EventStore;
  private readonly maxRetries: number;
  private readonly cache: StateCache;
  private readonly queues = new StreamQueues<Queued>((streamId, batch) => this.decideBatch(streamId, batch));
  private readonly snapshots: SnapshotPolicy;
  private readonly log: CommandLog;
  private readonly readPage: number;

  constructor(options: CommandHandlerOptions) {
    this.store = options.eventStore;
    this.maxRetries = options.maxRetries ?? 8;
    this.readPage = Math.max(1, options.readPage ?? STREAM_READ_PAGE);
    this.cache = new StateCache(options.cacheSize ?? 50_000);
    this.snapshots = new SnapshotPolicy(options.eventStore, options.snapshots, options.logger);
    this.log = new CommandLog(options.logger, options.metrics ? commandMetrics(options.metrics) : undefined);
  }

  /** Decides `command` on the stream and appends what it decided. Throws the decider's DomainError on refusal. */
  handle<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string, command: C, ctx: CommandContext): Promise<Handled<S, E>> {
    return new Promise((resolve, reject) => {
      const item = { decider: decider as unknown as AnyDecider, command, ctx, enqueuedAt: performance.now(), resolve: resolve as Queued['resolve'], reject };
      this.queues.push(streamId, item);
    });
  }

  /** Current state of a stream (reads only events newer than the cached revision). */
  async load<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string): Promise<StreamState<S>> {
    const fresh = await this.catchUp(decider, streamId, this.cache.get(decider, streamId));
    this.remember(decider, streamId, fresh);
    return fresh;
  }

  /**
   * The cached state of a stream, without reading the store (undefined when not cached). It may
   * be behind the store: only for shortcuts that the decider would confirm anyway.
   */
  peek<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string): S | undefined {
    return this.cache.peek(decider, streamId);
  }

  /** Forgets every cached state (tests that simulate a restart). */
  clearCache(): void {
    this.cache.clear();
  }

  /** One turn of a stream's queue: decide the batch, append what it decided, answer every command. */
  private async decideBatch(streamId: string, batch: Queued[]): Promise<void> {
    const decider = batch[0]!.decider;
    let current = this.cache.get(decider, streamId);
    let fresh = false;
    if (current.revision < 0) {
      current = await this.catchUp(decider, streamId, current);
      fresh = true;
    }
    for (let attempt = 1; ; attempt++) {
      const outcomes = decideInTurn(decider, batch, current.state);
      if (!fresh && outcomes.some(isRefusal)) {
        current = await this.catchUp(decider, streamId, current);
        fresh = true;
        this.remember(decider, streamId, current);
        continue;
      }
      const accepted = outcomes.filter(isAccepted);
      const newEvents = accepted.flatMap((outcome) => outcome.events.map((event) => newEvent(event, outcome.item.ctx)));
      if (newEvents.length === 0) return answerBatch(this.log, streamId, outcomes, { revision: current.revision, total: 0 }, attempt);
      try {
        const { nextExpectedRevision } = await this.store.append(streamId, newEvents, current.revision < 0 ? 'no_stream' : current.revision);
        this.remember(decider, streamId, { state: accepted.at(-1)!.state, revision: nextExpectedRevision });
        return answerBatch(this.log, streamId, outcomes, { revision: nextExpectedRevision, total: newEvents.length }, attempt);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) return failBatch(this.log, streamId, outcomes, error, attempt);
        if (attempt > this.maxRetries) return failBatch(this.log, streamId, outcomes, new CommandRejectedByConflicts(streamId, attempt), attempt);
        // Another process wrote meanwhile: read what it wrote and decide again.
        current = await this.catchUp(decider, streamId, current);
        fresh = true;
      }
    }
  }

  private remember<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string, value: StreamState<S>): void {
    if (this.cache.remember(decider, streamId, value)) this.snapshots.maybeSave(decider.snapshot, streamId, value);
  }

  /**
   * `from` brought up to date with the events stored after it (from the snapshot when starting
   * from nothing), read a page at a time: a long stream without a snapshot (the passes pool on a
   * first start, over a million events at 1,000,000 members) is never held whole in memory.
   */
  private async catchUp<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string, from: StreamState<S>): Promise<StreamState<S>> {
    if (from.revision < 0) from = (await this.snapshots.load(decider.snapshot, streamId)) ?? from;
    let { state, revision } = from;
    for (;;) {
      const recorded = await this.store.readStream(streamId, { fromRevision: revision + 1, maxCount: this.readPage });
      for (const recordedEvent of recorded) {
        const event = toCurrentEvent(recordedEvent);
        if (!decider.isEvent(event)) throw new Error(`Stream "${streamId}" holds ${event.type}, which is not a ${decider.name} event`);
        state = decider.evolve(state, event);
        revision = recordedEvent.revision;
      }
      if (recorded.length < this.readPage) return { state, revision };
    }
  }
}
