import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  WrongExpectedRevisionError,
  eventSchemaVersions,
  toDomainEvent,
  type CommandContext,
  type DomainEvent,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '@pass/events';
import type { Logger } from 'pino';
import type { Decider } from './decider';
import { DomainError } from './domain-error';

export interface CommandHandlerOptions {
  eventStore: EventStore;
  logger: Logger;
  /** Streams whose state is kept in memory (least recently used ones are dropped). */
  cacheSize?: number;
  /** Re-decisions after a revision conflict before giving up. */
  maxRetries?: number;
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

/**
 * Load → decide → append with the expected revision (DESIGN §3), with three things that make
 * hot commands cheap:
 * - commands on one stream run one after another in this process, so they do not conflict
 *   with each other;
 * - the state and revision of recently used streams stay in memory, and a command decides on
 *   them without reading: the append's expected revision proves the state was current. When
 *   another process wrote meanwhile the append conflicts, and only the newer events are read
 *   before deciding again (bounded retries);
 * - a refusal decided on cached state is re-checked on freshly read state before it is
 *   reported, so a stale cache never refuses a command the stream would accept.
 */
export class CommandHandler {
  private readonly store: EventStore;
  private readonly logger: Logger;
  private readonly cacheSize: number;
  private readonly maxRetries: number;
  private readonly cache = new Map<string, Cached>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: CommandHandlerOptions) {
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
    return this.serialize(streamId, () => this.run(decider, streamId, command, ctx));
  }

  /** Current state of a stream (reads only events newer than the cached revision). */
  async load<C extends AnyCommand, S, E extends DomainEvent>(decider: Decider<C, S, E>, streamId: string): Promise<{ state: S; revision: number }> {
    const cached = this.cached(decider, streamId);
    const fresh = await this.catchUp(decider, streamId, cached);
    this.remember(decider, streamId, fresh);
    return fresh;
  }

  /** Forgets every cached state (tests that simulate a restart). */
  clearCache(): void {
    this.cache.clear();
  }

  private async run<C extends AnyCommand, S, E extends DomainEvent>(
    decider: Decider<C, S, E>,
    streamId: string,
    command: C,
    ctx: CommandContext,
  ): Promise<Handled<S, E>> {
    const started = performance.now();
    const log = (outcome: string, extra: Record<string, unknown> = {}) =>
      this.logger.info(
        { command: command.type, stream: streamId, outcome, ms: Math.round((performance.now() - started) * 100) / 100, correlationId: ctx.correlationId, ...extra },
        'command',
      );

    let current = this.cached(decider, streamId);
    let fresh = false;
    if (current.revision < 0) {
      current = await this.catchUp(decider, streamId, current);
      fresh = true;
    }
    for (let attempt = 1; ; attempt++) {
      let events: E[];
      try {
        events = decider.decide(command, current.state);
      } catch (error) {
        if (error instanceof DomainError && !fresh) {
          current = await this.catchUp(decider, streamId, current);
          fresh = true;
          this.remember(decider, streamId, current);
          continue;
        }
        if (error instanceof DomainError) log('rejected', { code: error.code, attempts: attempt });
        else log('failed', { err: error, attempts: attempt });
        throw error;
      }
      if (events.length === 0) {
        log('unchanged', { attempts: attempt });
        return { events, state: current.state, revision: current.revision };
      }
      try {
        const result = await this.store.append(
          streamId,
          events.map((e) => newEvent(e, ctx)),
          current.revision < 0 ? 'no_stream' : current.revision,
        );
        let state = current.state;
        for (const event of events) state = decider.evolve(state, event);
        const next = { state, revision: result.nextExpectedRevision };
        this.remember(decider, streamId, next);
        log('accepted', { attempts: attempt, events: events.length });
        return { events, ...next };
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) {
          if (attempt > this.maxRetries) {
            log('failed', { reason: 'conflicts', attempts: attempt });
            throw new CommandRejectedByConflicts(streamId, attempt);
          }
          current = await this.catchUp(decider, streamId, current);
          fresh = true;
          continue;
        }
        log('failed', { err: error, attempts: attempt });
        throw error;
      }
    }
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

  private serialize<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key);
    const run = previous ? previous.then(work, work) : work();
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }
}
