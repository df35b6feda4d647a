import { toDomainEvent, type RecordedEvent } from '@pass/events';
import type { Keyspace } from '../read-models/port';
import { projectBatch, usersOf, type PositionedEvent, type ProjectedBatch } from './batch';

/** Thrown when another writer moved the keyspace's checkpoint under us. */
export class ConcurrentProjectionError extends Error {
  constructor(keyspace: string) {
    super(`Read models ${keyspace} were written by another projector; stopping this one`);
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
  for (const e of events) {
    const version = typeof e.metadata.schemaVersion === 'number' ? e.metadata.schemaVersion : 1;
    try {
      parsed.push({ position: e.position, event: toDomainEvent(e.type, e.data, version) });
    } catch (error) {
      return { parsed, error: new UnreadableEventError(e, error) };
    }
  }
  return { parsed };
}

/** Loads what the batch needs, projects it and stores writes + checkpoint in one step. */
export async function projectInto(keyspace: Keyspace, events: PositionedEvent[]): Promise<ProjectedBatch> {
  const snapshot = await keyspace.snapshot(usersOf(events));
  const projected = projectBatch(events, snapshot);
  if (!projected.batch) return projected;
  if ((await keyspace.apply(projected.batch)) === 'stale') throw new ConcurrentProjectionError(keyspace.id);
  return projected;
}
