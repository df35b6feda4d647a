import { DomainError, type DomainEvent } from '@pass/events';
import type { CommandLog, LoggedCommand } from './command-log';
import type { Decider } from './decider';
import type { Waiting } from './stream-queues';

export type AnyCommand = { type: string; now: Date };
export type AnyDecider = Decider<AnyCommand, unknown, DomainEvent>;

export interface Handled<S, E> {
  events: E[];
  state: S;
  /** Revision of the stream's last event after the command (-1: the stream does not exist). */
  revision: number;
}

/** A command waiting on its stream's queue, with how to answer its caller. */
export interface Queued extends LoggedCommand, Waiting {
  decider: AnyDecider;
  command: AnyCommand;
  resolve(handled: Handled<unknown, DomainEvent>): void;
}

interface Accepted {
  item: Queued;
  events: DomainEvent[];
  /** The state after this command's events. */
  state: unknown;
  /** Events the batch's earlier commands decided. */
  eventsBefore: number;
}
type Outcome = Accepted | { item: Queued; error: unknown };

export const isAccepted = (outcome: Outcome): outcome is Accepted => 'events' in outcome;
export const isRefusal = (outcome: Outcome): boolean => 'error' in outcome && outcome.error instanceof DomainError;

/** Decides each queued command on the state the previous ones leave; a refused one leaves it as it was. */
export function decideInTurn(decider: AnyDecider, batch: Queued[], initial: unknown): Outcome[] {
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

/**
 * Answers every command of a batch whose `total` events were appended, the last at `revision`
 * (nothing appended: total 0, revision the stream's). Each accepted command gets the revision
 * right after its own events.
 */
export function answerBatch(log: CommandLog, streamId: string, outcomes: Outcome[], appended: { revision: number; total: number }, attempts: number): void {
  for (const outcome of outcomes) {
    if (!isAccepted(outcome)) {
      if (outcome.error instanceof DomainError) log.decided(outcome.item, streamId, 'rejected', { code: outcome.error.code, attempts });
      else log.failed(outcome.item, streamId, outcome.error, attempts);
      outcome.item.reject(outcome.error);
      continue;
    }
    const own = appended.revision - (appended.total - outcome.eventsBefore - outcome.events.length);
    log.decided(outcome.item, streamId, outcome.events.length ? 'accepted' : 'unchanged', { attempts, events: outcome.events.length, batch: outcomes.length });
    outcome.item.resolve({ events: outcome.events, state: outcome.state, revision: own });
  }
}

/** Answers a batch whose append failed: refused commands keep their refusal, accepted ones get `failure`. */
export function failBatch(log: CommandLog, streamId: string, outcomes: Outcome[], failure: unknown, attempts: number): void {
  for (const outcome of outcomes) {
    if (!isAccepted(outcome)) {
      outcome.item.reject(outcome.error);
      continue;
    }
    log.failed(outcome.item, streamId, failure, attempts);
    outcome.item.reject(failure);
  }
}
