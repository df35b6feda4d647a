import { eventDataSchemas, eventSchemaVersions, isEventType, type DomainEvent } from './domain-events';
import { listedCountryOrNone } from './countries';

/**
 * An upcaster turns the data of version `from` into version `from + 1`.
 * Register them here when an event's shape changes; old events in the store are never rewritten.
 */
export type Upcaster = (data: unknown) => unknown;
export type UpcasterRegistry = Partial<Record<DomainEvent['type'], Record<number, Upcaster>>>;

/**
 * Version 1 cards took any country text (the server did not check it): read, a country off the
 * list is none (`listedCountryOrNone`), so no page shows it and it counts for no country.
 */
const cardCountryFromList: Upcaster = (data) => {
  const card = data as { country?: unknown };
  return typeof card.country === 'string' ? { ...card, country: listedCountryOrNone(card.country) } : data;
};

export const upcasters: UpcasterRegistry = {
  CertificatePosted: { 1: cardCountryFromList },
  CertificateUpdated: { 1: cardCountryFromList },
};

export class UnknownEventError extends Error {
  constructor(readonly eventType: string) {
    super(`Unknown event type "${eventType}"`);
    this.name = 'UnknownEventError';
  }
}

/**
 * Reads a stored event into the current shape: upcasts from its schema version, then validates.
 * Throws on an unknown type or data that does not match, so a corrupt event is never half-applied.
 */
export function toDomainEvent(
  type: string,
  data: unknown,
  schemaVersion = 1,
  registry: UpcasterRegistry = upcasters,
): DomainEvent {
  if (!isEventType(type)) throw new UnknownEventError(type);
  let current = data;
  const target = eventSchemaVersions[type];
  for (let version = schemaVersion; version < target; version++) {
    const up = registry[type]?.[version];
    if (!up) throw new Error(`No upcaster for ${type} v${version} -> v${version + 1}`);
    current = up(current);
  }
  return { type, data: eventDataSchemas[type].parse(current) } as DomainEvent;
}

/** What `toCurrentEvent` needs of a stored event (the store's `RecordedEvent` has it). */
export interface StoredEventShape {
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/** The metadata keys `toCurrentEvent` reads: a reader that only upcasts asks the store for these alone. */
export const UPCAST_METADATA_KEYS: readonly string[] = ['schemaVersion'];

/** A stored event in its current shape: its schema version read from its metadata (1 when absent), upcast and validated. */
export function toCurrentEvent(recorded: StoredEventShape, registry: UpcasterRegistry = upcasters): DomainEvent {
  const version = typeof recorded.metadata.schemaVersion === 'number' ? recorded.metadata.schemaVersion : 1;
  return toDomainEvent(recorded.type, recorded.data, version, registry);
}
