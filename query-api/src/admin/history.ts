import { isEventOf, streams, toCurrentEvent, type DomainEvent, type EventStore, type PointHistoryEntry, type RecordedEvent, type UserEvent } from '@pass/events';

/**
 * A member's own stream as an audit timeline: every event with what it did to the balance and
 * the passes, the running totals after it, who caused it and the correlation id that ties it to
 * a request. Read straight from the event store, so it is exact even while projections lag.
 */

interface Change {
  description: string;
  pointsDelta: number;
  passesDelta: number;
}

const isUserEvent = isEventOf('user');

/** What an event of a member's stream did (the kernel's list of the user stream's events, every one described). */
function describeUserEvent(event: UserEvent): Change {
  switch (event.type) {
    case 'UserRegistered':
      return { description: `Registered as ${event.data.email} with ${event.data.points} points`, pointsDelta: event.data.points, passesDelta: 0 };
    case 'FreePointAwarded':
      return { description: 'Free point for an ad view', pointsDelta: event.data.points, passesDelta: 0 };
    case 'PointsPurchased': {
      const d = event.data;
      return { description: `Bought ${d.points} points for ${d.amountUsd} USD (${d.provider}, capture ${d.captureId})`, pointsDelta: d.points, passesDelta: 0 };
    }
    case 'PurchaseReversed': {
      const d = event.data;
      return { description: `Purchase ${d.captureId} ${d.reason}: ${d.amountUsd} USD`, pointsDelta: -d.points, passesDelta: 0 };
    }
    case 'PassesClaimed':
      return { description: `Claimed ${event.data.passes} passes`, pointsDelta: -event.data.pointsSpent, passesDelta: event.data.passes };
    case 'PriorityChanged':
      return { description: `Priority set to ${event.data.priority || 'none'}`, pointsDelta: 0, passesDelta: 0 };
    case 'CertificatePosted':
      return { description: `Posted a card as ${event.data.fullname} (${event.data.country})`, pointsDelta: 0, passesDelta: 0 };
    case 'CertificateUpdated':
      return { description: `Updated the card as ${event.data.fullname} (${event.data.country})`, pointsDelta: 0, passesDelta: 0 };
    case 'ChatMessageSent': {
      const text = event.data.message.length > 60 ? `${event.data.message.slice(0, 57)}...` : event.data.message;
      return { description: `Chat message: ${text}`, pointsDelta: -event.data.pointsSpent, passesDelta: 0 };
    }
    case 'MemberPostDeleted':
      return { description: `Post deleted by ${event.data.deletedBy}`, pointsDelta: 0, passesDelta: 0 };
  }
}

/** Another stream's event in a member's stream would be a bug; it is shown by its type, changing nothing. */
function describe(event: DomainEvent): Change {
  return isUserEvent(event) ? describeUserEvent(event) : { description: event.type, pointsDelta: 0, passesDelta: 0 };
}

function actorOf(metadata: Record<string, unknown>): string {
  const actor = metadata.actor as { type?: string; id?: string } | undefined;
  if (!actor?.type) return 'unknown';
  return actor.id ? `${actor.type}:${actor.id}` : actor.type;
}

function toTimeline(events: RecordedEvent[]): PointHistoryEntry[] {
  let points = 0;
  let passes = 0;
  return events.map((e) => {
    let change: Change;
    try {
      change = describe(toCurrentEvent(e));
    } catch {
      change = { description: `Unreadable ${e.type} event`, pointsDelta: 0, passesDelta: 0 };
    }
    points += change.pointsDelta;
    passes += change.passesDelta;
    return {
      revision: e.revision,
      at: typeof e.metadata.occurredAt === 'string' ? e.metadata.occurredAt : e.recordedAt.toISOString(),
      type: e.type,
      description: change.description,
      pointsDelta: change.pointsDelta,
      passesDelta: change.passesDelta,
      points,
      passes,
      actor: actorOf(e.metadata),
      correlationId: typeof e.metadata.correlationId === 'string' ? e.metadata.correlationId : '',
    };
  });
}

export async function memberHistory(store: EventStore, userId: string): Promise<PointHistoryEntry[]> {
  return toTimeline(await store.readStream(streams.user(userId)));
}

const COLUMNS: Array<keyof PointHistoryEntry> = ['revision', 'at', 'type', 'description', 'pointsDelta', 'passesDelta', 'points', 'passes', 'actor', 'correlationId'];

/** RFC 4180 quoting; text that a spreadsheet would run as a formula is prefixed with '. */
function cell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function timelineCsv(entries: PointHistoryEntry[]): string {
  const lines = [COLUMNS.join(',')];
  for (const e of entries) lines.push(COLUMNS.map((c) => cell(e[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
