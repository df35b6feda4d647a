import { randomUUID } from 'node:crypto';
import { assertNever, emailStreams, eventSchemaVersions, isEventOf, streams, type DomainEvent, type EventStore, type NewEvent } from '@pass/events';

const isUserEvent = isEventOf('user');
/** E-mail stream names as an installation of the tests' own names them. */
const emailStream = emailStreams(Buffer.alloc(32, 0x5e));

/** The stream an event belongs to (docs/architecture.md, "Command side"; which events each holds: STREAM_EVENT_TYPES). */
export function streamOf(event: DomainEvent): string {
  if (isUserEvent(event)) return streams.user(event.data.userId);
  switch (event.type) {
    case 'EmailReserved':
      return emailStream(event.data.email);
    case 'EmailReleased':
      // Names no e-mail (its member is erased): append it to the reservation's stream directly.
      throw new Error('EmailReleased has no stream of its own to derive');
    case 'PassSupplySet':
    case 'PassesReserved':
    case 'PassReservationConfirmed':
    case 'PassReservationReleased':
      return streams.passesPool;
    case 'MainDataEdited':
    case 'AdViewsReset':
    case 'ChatCleared':
      return streams.site;
    case 'AdminRegistered':
      return streams.admin(event.data.adminId);
    default:
      return assertNever(event);
  }
}

export function toNewEvent(event: DomainEvent, correlationId = randomUUID()): NewEvent {
  const id = randomUUID();
  return {
    id,
    type: event.type,
    data: event.data,
    metadata: {
      eventId: id,
      correlationId,
      causationId: correlationId,
      actor: { type: 'system', id: 'test' },
      schemaVersion: eventSchemaVersions[event.type],
      occurredAt: new Date().toISOString(),
    },
  };
}

/**
 * Appends events in the given order, grouping consecutive events of one stream into one append
 * (as a command handler would), for tests and benches that drive the read side with real events.
 */
export async function appendEvents(store: EventStore, events: Iterable<DomainEvent>, groupLimit = 500): Promise<number> {
  let count = 0;
  let stream: string | undefined;
  let group: NewEvent[] = [];
  const flush = async () => {
    if (stream !== undefined && group.length > 0) await store.append(stream, group, 'any');
    count += group.length;
    group = [];
  };
  for (const event of events) {
    const s = streamOf(event);
    if (s !== stream || group.length >= groupLimit) {
      await flush();
      stream = s;
    }
    group.push(toNewEvent(event));
  }
  await flush();
  return count;
}
