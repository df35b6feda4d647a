import type { DomainEvent } from '@pass/events';
import type { SnapshotCodec } from './aggregate-snapshots';

/**
 * A pure aggregate (docs/architecture.md, "Command side"): `decide` turns a command and the current state into new events
 * or throws a `DomainError`; `evolve` folds one event of the aggregate's stream into the state.
 * Time comes in with the command (`command.now`), so both are deterministic and tested without I/O.
 */
export interface Decider<C extends { type: string; now: Date }, S, E extends DomainEvent> {
  /** Names the aggregate in logs. */
  readonly name: string;
  initialState(): S;
  /** True for the events this aggregate's stream holds; anything else in the stream is a bug. */
  isEvent(event: DomainEvent): event is E;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
  /** For streams that grow long (passes-pool): how to snapshot the state, so loading it does not replay every event. */
  readonly snapshot?: SnapshotCodec<S>;
}

export function fold<C extends { type: string; now: Date }, S, E extends DomainEvent>(
  decider: Decider<C, S, E>,
  events: readonly E[],
  state: S = decider.initialState(),
): S {
  let current = state;
  for (const event of events) current = decider.evolve(current, event);
  return current;
}
