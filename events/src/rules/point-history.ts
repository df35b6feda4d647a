import type { PointHistoryEntry } from '../api';
import type { DomainEvent } from '../domain-events';
import type { RecordedEvent } from '../event-store/port';
import { isEventOf, type UserEvent } from '../stream-events';
import { toCurrentEvent } from '../upcasters';

/**
 * A member's own stream as a timeline: every event with what it did to the balance and the
 * passes, the running totals after it, who caused it and the correlation id that ties it to a
 * request. One function for the admin's point history (query-api) and the member's own data
 * export (command-api), so both show the same numbers. Browser-safe.
 */

interface Change {
  description: string;
  pointsDelta: number;
  passesDelta: number;
}

const isUserEvent = isEventOf('user');

/** A personal field of an erased member reads as '' (its key is destroyed): said so, not left blank. */
const shown = (value: string) => value || '(erased)';
/** A card's country after its name; none (a card recorded with text off the list) adds nothing. */
const inCountry = (country: string) => (country ? ` (${country})` : '');

/** What an event of a member's stream did (the kernel's list of the user stream's events, every one described). */
function describeUserEvent(event: UserEvent): Change {
  switch (event.type) {
    case 'UserRegistered':
      return { description: `Registered as ${shown(event.data.email)} with ${event.data.points} points`, pointsDelta: event.data.points, passesDelta: 0 };
    case 'FreePointAwarded':
      return { description: 'Free point for an ad view', pointsDelta: event.data.points, passesDelta: 0 };
    case 'PointsPurchased': {
      const purchase = event.data;
      return { description: `Bought ${purchase.points} points for ${purchase.amountUsd} USD (${purchase.provider}, capture ${purchase.captureId})`, pointsDelta: purchase.points, passesDelta: 0 };
    }
    case 'PurchaseReversed': {
      const reversal = event.data;
      return { description: `Purchase ${reversal.captureId} ${reversal.reason}: ${reversal.amountUsd} USD`, pointsDelta: -reversal.points, passesDelta: 0 };
    }
    case 'PassesClaimed':
      return { description: `Claimed ${event.data.passes} passes`, pointsDelta: -event.data.pointsSpent, passesDelta: event.data.passes };
    case 'PriorityChanged':
      return { description: `Priority set to ${event.data.priority || 'none'}`, pointsDelta: 0, passesDelta: 0 };
    case 'CertificatePosted':
      return { description: `Posted a card as ${shown(event.data.fullname)}${inCountry(event.data.country)}`, pointsDelta: 0, passesDelta: 0 };
    case 'CertificateUpdated':
      return { description: `Updated the card as ${shown(event.data.fullname)}${inCountry(event.data.country)}`, pointsDelta: 0, passesDelta: 0 };
    case 'ChatMessageSent': {
      const text = event.data.message.length > 60 ? `${event.data.message.slice(0, 57)}...` : shown(event.data.message);
      return { description: `Chat message: ${text}`, pointsDelta: -event.data.pointsSpent, passesDelta: 0 };
    }
    case 'MemberPostDeleted':
      return { description: `Post deleted by ${event.data.deletedBy}`, pointsDelta: 0, passesDelta: 0 };
    case 'PasswordChanged':
      return { description: event.data.via === 'reset' ? 'Password set with a reset link' : 'Password changed', pointsDelta: 0, passesDelta: 0 };
    case 'PasswordResetRequested':
      return { description: 'Password reset link sent', pointsDelta: 0, passesDelta: 0 };
    case 'MemberErased':
      return {
        description: `Member erased at ${event.data.requestedBy === 'admin' ? `an admin's hand (${event.data.adminId ?? 'unknown'})` : 'their own request'}: personal data destroyed`,
        pointsDelta: 0,
        passesDelta: 0,
      };
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

/** The recorded events of one member's stream, oldest first, as the timeline with running totals. */
export function pointTimeline(events: readonly RecordedEvent[]): PointHistoryEntry[] {
  let points = 0;
  let passes = 0;
  return events.map((recorded) => {
    let change: Change;
    try {
      change = describe(toCurrentEvent(recorded));
    } catch {
      change = { description: `Unreadable ${recorded.type} event`, pointsDelta: 0, passesDelta: 0 };
    }
    points += change.pointsDelta;
    passes += change.passesDelta;
    return {
      revision: recorded.revision,
      at: typeof recorded.metadata.occurredAt === 'string' ? recorded.metadata.occurredAt : recorded.recordedAt.toISOString(),
      type: recorded.type,
      description: change.description,
      pointsDelta: change.pointsDelta,
      passesDelta: change.passesDelta,
      points,
      passes,
      actor: actorOf(recorded.metadata),
      correlationId: typeof recorded.metadata.correlationId === 'string' ? recorded.metadata.correlationId : '',
    };
  });
}
