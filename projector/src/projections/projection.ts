import type { DomainEvent, DomainEventOf, EventType } from '@pass/events';
import type { ReadModelWrite, UserRow } from '../read-models/types';
import type { WorkingCopy } from './working-copy';

/**
 * The one shape of a read model's projection. `batch.ts` runs every projection over a batch:
 * `evolve` for each event it handles, `rowChanged` for each user row the batch changed, then
 * `writes`. Everything works on the batch's working copy, in place: a batch must not allocate an
 * object per event per projection (that garbage would be most of its cost).
 * Adding a read model: a module of this shape in `batch.ts`'s list, and the store mapping of any
 * new write op in both adapters (`read-models/memory.ts`, `read-models/redis/batches.ts`).
 */
export interface Projection<T extends EventType> extends AfterEvents {
  /** The events `evolve` is called with; none for a read model kept from the user rows. */
  readonly handles: readonly T[];
  evolve?(copy: WorkingCopy, event: DomainEventOf<T>): void;
}

interface AfterEvents {
  /** A user row the batch changed: as stored before it (undefined: new), and its working copy now. */
  rowChanged?(before: UserRow | undefined, after: UserRow, copy: WorkingCopy, out: ReadModelWrite[]): void;
  /** A user erased in the batch, with their row as stored before it: everything kept from that row goes. */
  rowErased?(before: UserRow, copy: WorkingCopy, out: ReadModelWrite[]): void;
  /** After the last event and the changed rows: the rest of the batch's writes. */
  writes?(copy: WorkingCopy, out: ReadModelWrite[]): void;
}

/** A projection whatever events it handles, as `batch.ts` holds them all. */
export interface AnyProjection extends AfterEvents {
  readonly handles: readonly EventType[];
  evolve?(copy: WorkingCopy, event: DomainEvent): void;
}

/** Declares a projection, typing `evolve`'s event by `handles`. */
export const projection = <const T extends EventType>(declared: Projection<T>): Projection<T> => declared;
