import { toCurrentEvent, type RecordedEvent } from '@pass/events';
import type { Keyspace } from '../read-models/port';
import { projectBatch } from './batch';
import type { PositionedEvent, ProjectedBatch } from './types';
import { usersOf } from './users';

/** Thrown when an apply found the keyspace's checkpoint moved (another writer, or Redis lost it). */
export class ConcurrentProjectionError extends Error {
  constructor(keyspace: string) {
    super(`Read models ${keyspace} changed under this projector (another writer, or read models lost); restarting from their checkpoint`);
    this.name = 'ConcurrentProjectionError';
  }
}

/** Parses stored events (upcasting old versions); throws on an event it cannot read. */
export function toPositioned(events: RecordedEvent[]): PositionedEvent[] {
  const { parsed, error } = parseUntilInvalid(events);
  if (error) throw error;
  return parsed;
}

export class UnreadableEventError extends Error {
  constructor(event: RecordedEvent, cause: unknown) {
    super(`Cannot read event ${event.id} (${event.type}) of ${event.streamId}@${event.revision}: ${(cause as Error).message}`, { cause });
    this.name = 'UnreadableEventError';
  }
}

/** Parses events up to the first one it cannot read, so the readable ones before it still count. */
export function parseUntilInvalid(events: RecordedEvent[]): { parsed: PositionedEvent[]; error?: UnreadableEventError } {
  const parsed: PositionedEvent[] = [];
  for (const recorded of events) {
    try {
      parsed.push({ position: recorded.position, event: toCurrentEvent(recorded) });
    } catch (error) {
      return { parsed, error: new UnreadableEventError(recorded, error) };
    }
  }
  return { parsed };
}

/**
 * Thrown when a keyspace's checkpoint is not where this projector left it, e.g. Redis restarted
 * without persistence while the projector was idle: the batch would land on read models that
 * lost what came before. The projector restarts from the stored checkpoint (from 0 when gone).
 */
export class ReadModelsChangedError extends Error {
  constructor(keyspace: string, stored: string | null, expected: string | null) {
    super(`Read models ${keyspace} are at ${stored ?? 'the start'}, not where this projector left them (${expected ?? 'the start'}); restarting from their checkpoint`);
    this.name = 'ReadModelsChangedError';
  }
}

/**
 * Loads what the batch needs, projects it and stores writes + checkpoint in one step. With
 * `expectedCheckpoint` (the last position this caller stored, null for none), a keyspace whose
 * checkpoint is elsewhere is refused with ReadModelsChangedError instead of being written.
 */
export async function projectInto(keyspace: Keyspace, events: PositionedEvent[], expectedCheckpoint?: string | null): Promise<ProjectedBatch> {
  const snapshot = await keyspace.snapshot(usersOf(events));
  if (expectedCheckpoint !== undefined && snapshot.checkpoint !== expectedCheckpoint) {
    throw new ReadModelsChangedError(keyspace.id, snapshot.checkpoint, expectedCheckpoint);
  }
  const projected = projectBatch(events, snapshot);
  if (!projected.batch) return projected;
  if ((await keyspace.apply(projected.batch)) === 'stale') throw new ConcurrentProjectionError(keyspace.id);
  return projected;
}
