import type { DomainEvent, EventType } from './domain-events';

/**
 * Which events each stream category holds (docs/architecture.md, "Command side"), owned here once: the command side's
 * deciders, the admin's point history and the projections read their lists from this table.
 * Browser-safe (the stream names themselves, hashed e-mails included, are in `streams.ts`).
 */
export const STREAM_EVENT_TYPES = {
  user: [
    'UserRegistered',
    'FreePointAwarded',
    'PointsPurchased',
    'PurchaseReversed',
    'PassesClaimed',
    'PriorityChanged',
    'CertificatePosted',
    'CertificateUpdated',
    'ChatMessageSent',
    'MemberPostDeleted',
    'PasswordChanged',
    'PasswordResetRequested',
    'MemberErased',
  ],
  email: ['EmailReserved', 'EmailReleased'],
  'passes-pool': ['PassSupplySet', 'PassesReserved', 'PassReservationConfirmed', 'PassReservationReleased'],
  site: ['MainDataEdited', 'AdViewsReset', 'ChatCleared'],
  admin: ['AdminRegistered'],
} as const satisfies Record<string, readonly EventType[]>;

export type StreamCategory = keyof typeof STREAM_EVENT_TYPES;
export type EventTypeOf<C extends StreamCategory> = (typeof STREAM_EVENT_TYPES)[C][number];
export type EventOfStream<C extends StreamCategory> = Extract<DomainEvent, { type: EventTypeOf<C> }>;

export type UserEvent = EventOfStream<'user'>;
export type EmailEvent = EventOfStream<'email'>;
export type PoolEvent = EventOfStream<'passes-pool'>;
export type SiteEvent = EventOfStream<'site'>;
export type AdminEvent = EventOfStream<'admin'>;

/** A type guard for the events of one stream category. */
export function isEventOf<C extends StreamCategory>(category: C): (event: DomainEvent) => event is EventOfStream<C> {
  const types = new Set<string>(STREAM_EVENT_TYPES[category]);
  return (event): event is EventOfStream<C> => types.has(event.type);
}
