import { comparePositions, eventTypes, positionFromString, positionToString, type DomainEvent, type EventType } from '@pass/events';
import type { BatchSnapshot, ReadModelWrite } from '../read-models/types';
import { chat } from './chat';
import { countries } from './countries';
import { globalPosts } from './global-posts';
import { mainData } from './main-data';
import type { AnyProjection } from './projection';
import { progress } from './progress';
import { ranking } from './ranking';
import type { PositionedEvent, ProjectedBatch } from './types';
import { sameRow, users } from './users';
import { WorkingCopy } from './working-copy';

/**
 * Every read model, in the order each event, each changed row and the final writes reach them:
 * users first (the others read the rows it keeps), then main data (it stores the figures the
 * others count into), then progress (it reads each event's figures from main data).
 */
const PROJECTIONS: readonly AnyProjection[] = [users, ranking, countries, chat, globalPosts, mainData, progress];

// Looked up once here rather than asked of every projection for every event. The hooks are
// called unbound: projections are plain objects that never use `this`.
type Evolve = NonNullable<AnyProjection['evolve']>;
type RowChanged = NonNullable<AnyProjection['rowChanged']>;
type RowErased = NonNullable<AnyProjection['rowErased']>;
type Writes = NonNullable<AnyProjection['writes']>;
const EVOLVE = Object.fromEntries(eventTypes.map((type) => [type, [] as Evolve[]])) as Record<EventType, Evolve[]>;
const ROW_CHANGED: RowChanged[] = [];
const ROW_ERASED: RowErased[] = [];
const WRITES: Writes[] = [];
for (const projection of PROJECTIONS) {
  if (projection.handles.length > 0 && !projection.evolve) throw new Error(`A projection handles ${projection.handles.join(', ')} without an evolve`);
  for (const type of projection.handles) EVOLVE[type].push(projection.evolve!);
  if (projection.rowChanged) ROW_CHANGED.push(projection.rowChanged);
  if (projection.rowErased) ROW_ERASED.push(projection.rowErased);
  if (projection.writes) WRITES.push(projection.writes);
}

/**
 * Event types no projection reads (an e-mail reservation, for one): the projector subscribes
 * with these as `sealedTypes`, so their personal fields are never decrypted for it.
 */
export const UNPROJECTED_TYPES: readonly EventType[] = eventTypes.filter((type) => EVOLVE[type].length === 0);

/**
 * Runs every projection over a batch, starting from the stored values in `snapshot`, and returns
 * the writes to store together with the batch's last position. Pure: same events and snapshot,
 * same writes. Events at or before the stored checkpoint are skipped, so a re-delivered batch
 * changes nothing. Per-user writes are the difference between the row before and after the
 * whole batch, so a user touched by 50 events costs one row write.
 * `index`: 'defer' leaves the search index out (a catch-up from an empty keyspace builds it at
 * the end: IndexState); a batch on an empty keyspace records which it is.
 */
export function projectBatch(events: PositionedEvent[], snapshot: BatchSnapshot, index: 'write' | 'defer' = 'write'): ProjectedBatch {
  const after = snapshot.checkpoint === null ? null : positionFromString(snapshot.checkpoint);
  const fresh = after === null ? events : events.filter((positioned) => comparePositions(positioned.position, after) > 0);
  if (fresh.length === 0) return { batch: null, live: [], applied: 0 };

  let sealed: Set<DomainEvent> | undefined;
  for (const positioned of fresh) if (positioned.sealed) (sealed ??= new Set()).add(positioned.event);
  const copy = new WorkingCopy(snapshot, index === 'write', sealed);
  for (const { event } of fresh) {
    const evolvers = EVOLVE[event.type];
    for (let i = 0; i < evolvers.length; i++) evolvers[i]!(copy, event);
  }
  const writes: ReadModelWrite[] = [];
  if (snapshot.checkpoint === null) writes.push({ op: 'indexState', state: index === 'write' ? 'complete' : 'deferred' });
  for (const [userId, now] of copy.rows) {
    const before = snapshot.users.get(userId);
    if (copy.erased.has(userId)) {
      // Registered and erased in one batch: nothing was stored, nothing to take back.
      if (before) for (let i = 0; i < ROW_ERASED.length; i++) ROW_ERASED[i]!(before, copy, writes);
      continue;
    }
    if (before && sameRow(before, now)) continue;
    for (let i = 0; i < ROW_CHANGED.length; i++) ROW_CHANGED[i]!(before, now, copy, writes);
  }
  for (let i = 0; i < WRITES.length; i++) WRITES[i]!(copy, writes);

  return {
    batch: {
      expectedCheckpoint: snapshot.checkpoint,
      checkpoint: positionToString(fresh[fresh.length - 1]!.position),
      writes,
    },
    live: copy.live,
    applied: fresh.length,
  };
}
