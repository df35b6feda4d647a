import { START, comparePositions, positionFromString, positionToString, type EventStore, type ProjectionStatus } from '@pass/events';
import type { Keyspace } from '../read-models/port';

export const LAG_SCAN_LIMIT = 10_000;

/**
 * Where a keyspace stands against the store: its checkpoint, the head, how many events are
 * still to project (counted up to LAG_SCAN_LIMIT) and how long the oldest of them has waited.
 * Works from any process that can read both, so query-api can report it without the projector.
 */
export async function lagOf(keyspace: Keyspace, store: EventStore): Promise<Omit<ProjectionStatus, 'lastError' | 'rebuild'>> {
  const [stored, head] = await Promise.all([keyspace.checkpoint(), store.headPosition()]);
  const position = stored ? positionFromString(stored) : START;
  let lagEvents = 0;
  let lagSeconds = 0;
  if (comparePositions(head, position) > 0) {
    const pending = await store.readAll({ after: position, maxCount: LAG_SCAN_LIMIT });
    lagEvents = pending.length;
    if (pending[0]) lagSeconds = Math.max(0, (Date.now() - pending[0].recordedAt.getTime()) / 1000);
  }
  return { position: positionToString(position), headPosition: positionToString(head), lagEvents, lagSeconds };
}
