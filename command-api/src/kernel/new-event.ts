import { randomUUID } from 'node:crypto';
import { eventSchemaVersions, type CommandContext, type DomainEvent, type EventMetadata, type NewEvent } from '@pass/events';

/** A decided event with its metadata (docs/architecture.md, "Command side"): who caused it, why, when, in which schema version. */
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
