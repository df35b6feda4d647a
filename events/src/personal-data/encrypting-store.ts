/**
 * The EventStore decorator that keeps members' personal data encrypted at rest: the fields
 * `personalFieldsByType` names are encrypted with their member's key at `append` and
 * decrypted in every read (`readStream`, `readAll`, `subscribeToAll` batches), one key fetch
 * per batch. A field whose key is destroyed reads as erased (''), and the event stays valid.
 * Appending `MemberErased` destroys the member's key once the event is stored; a read that
 * meets a `MemberErased` whose key is still there (a crash between the two) destroys it then.
 */
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  GlobalPosition,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeToAllOptions,
  Subscription,
} from '../event-store/port';
import { ERASED_VALUE, ERASURE_EVENT, personalFieldsOf } from '../rules/personal-data';
import { decryptField, ENCRYPTED_PREFIX, encryptField, isEncrypted, PersonalDataError } from './cipher';
import type { KeyStore } from './key-store';

type Data = Record<string, unknown>;

export class EncryptingEventStore implements EventStore {
  readonly kind: string;
  readonly now?: () => Promise<Date>;
  /** Forwarded when the inner store can count its events (projector progress). */
  readonly countAll?: () => Promise<number>;

  constructor(
    readonly inner: EventStore,
    readonly keys: KeyStore,
  ) {
    this.kind = inner.kind;
    if (inner.now) this.now = inner.now.bind(inner);
    const counting = inner as EventStore & { countAll?: () => Promise<number> };
    if (typeof counting.countAll === 'function') this.countAll = counting.countAll.bind(inner);
  }

  async append(streamId: string, events: NewEvent[], expectedRevision?: ExpectedRevision): Promise<AppendResult> {
    const owners = new Set<string>();
    for (const event of events) {
      const owner = ownerToEncrypt(event.type, event.data);
      if (owner !== undefined) owners.add(owner);
    }
    const keys = owners.size > 0 ? await this.keys.keysFor([...owners], { create: true }) : undefined;
    const stored = keys ? events.map((event) => encryptEvent(event, keys)) : events;
    const result = await this.inner.append(streamId, stored, expectedRevision);
    for (const id of erasedMembers(events)) await this.keys.destroy(id);
    return result;
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.decrypt(await this.inner.readStream(streamId, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.decrypt(await this.inner.readAll(options));
  }

  headPosition(): Promise<GlobalPosition> {
    return this.inner.headPosition();
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    const types = new Set(options.sealedTypes ?? []);
    const byType = (event: RecordedEvent) => types.has(event.type);
    const chooses = options.sealedEvents;
    return this.inner.subscribeToAll({
      ...options,
      onEvents: async (events) => {
        const chosen = chooses?.(events);
        const sealed = chosen && chosen.size > 0 ? (event: RecordedEvent) => types.has(event.type) || chosen.has(event) : byType;
        return options.onEvents(await this.decrypt(events, sealed));
      },
    });
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      await this.keys.close();
    }
  }

  /**
   * Decrypts a batch in place of the inner store's events: one key fetch for the batch's members.
   * Events `sealed` picks stay as stored (their reader needs none of their personal fields).
   */
  async decrypt(events: RecordedEvent[], sealed?: (event: RecordedEvent) => boolean): Promise<RecordedEvent[]> {
    const erased = erasedMembers(events);
    if (erased.length > 0) await this.finishErasures(erased);
    return decryptEvents(events, this.keys, sealed);
  }

  /** Keys still held for members whose erasure is stored: destroyed now (and dropped from this process's cache). */
  private async finishErasures(memberIds: string[]): Promise<void> {
    const cache = this.keys as KeyStore & { forget?: (id: string) => void };
    for (const id of memberIds) cache.forget?.(id);
    const still = await this.keys.keysFor(memberIds);
    for (const id of still.keys()) await this.keys.destroy(id);
  }
}

/** The member whose key an event needs: it has personal fields of which one is in the state `wanted` looks for. */
function ownerWhere(type: string, data: unknown, wanted: (value: unknown) => boolean): string | undefined {
  const spec = personalFieldsOf(type);
  if (!spec || !isObject(data)) return undefined;
  const owner = data[spec.owner];
  if (typeof owner !== 'string') return undefined;
  return spec.fields.some((field) => wanted(data[field])) ? owner : undefined;
}

const ownerToEncrypt = (type: string, data: unknown) => ownerWhere(type, data, needsEncryption);
const ownerToDecrypt = (type: string, data: unknown) => ownerWhere(type, data, isEncrypted);

/**
 * '' says nothing about the member and stays as it is; any other text is sealed, even one that
 * starts like a sealed value: a member may type `pd1:` too, and what is appended is always clear.
 */
function needsEncryption(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * One AES-GCM operation per event, not per field (a card has four): the event's clear personal
 * fields go together, as JSON, into the first of them (`pd1:<sealed>`); the others hold the bare
 * `pd1:`, "sealed with the first". The additional data names the member and the event type.
 */
const SEALED_FIELDS = '*';
const IN_SEALED = ENCRYPTED_PREFIX;

/**
 * The event as stored: its personal fields encrypted, or erased when the member's key is destroyed.
 * Its fields are clear text (what the command side appends; the migration passes only events that
 * still hold clear text): one that starts with `pd1:` is sealed like any other.
 */
export function encryptEvent<E extends { type: string; data: unknown }>(event: E, keys: Map<string, Buffer>): E {
  const spec = personalFieldsOf(event.type);
  if (!spec || !isObject(event.data)) return event;
  const owner = event.data[spec.owner];
  if (typeof owner !== 'string') return event;
  const clear = spec.fields.filter((field) => needsEncryption((event.data as Data)[field]));
  if (clear.length === 0) return event;
  const key = keys.get(owner);
  const data: Data = { ...event.data };
  if (!key) {
    // No key on the write path means the member is erased: their late data is not kept at all.
    for (const field of clear) data[field] = ERASED_VALUE;
    return { ...event, data };
  }
  const values = Object.fromEntries(clear.map((field) => [field, data[field]]));
  clear.forEach((field, i) => (data[field] = i === 0 ? encryptField(key, owner, event.type, SEALED_FIELDS, JSON.stringify(values)) : IN_SEALED));
  return { ...event, data };
}

/**
 * Events with their personal fields in clear (erased where the key is gone): one key fetch for
 * them all. Events `sealed` picks are returned as they are.
 */
export async function decryptEvents<E extends { type: string; data: unknown }>(events: E[], keyStore: KeyStore, sealed?: (event: E) => boolean): Promise<E[]> {
  const owners = new Set<string>();
  for (const event of events) {
    if (sealed?.(event)) continue;
    const owner = ownerToDecrypt(event.type, event.data);
    if (owner !== undefined) owners.add(owner);
  }
  if (owners.size === 0) return events;
  const keys = await keyStore.keysFor([...owners]);
  return events.map((event) => (sealed?.(event) ? event : decryptEvent(event, keys)));
}

function decryptEvent<E extends { type: string; data: unknown }>(event: E, keys: Map<string, Buffer>): E {
  const spec = personalFieldsOf(event.type);
  if (!spec || !isObject(event.data)) return event;
  const source = event.data;
  const owner = source[spec.owner];
  if (typeof owner !== 'string') return event;
  // One pass over the fields (this runs for every personal event a catch-up reads).
  let sealed: string | undefined;
  let encrypted = false;
  for (const field of spec.fields) {
    const value = source[field];
    if (!isEncrypted(value)) continue;
    encrypted = true;
    if (sealed === undefined && value !== IN_SEALED) sealed = value;
  }
  if (!encrypted) return event;
  const key = keys.get(owner);
  let values: Data = {};
  if (key && sealed !== undefined) {
    const opened: unknown = JSON.parse(decryptField(key, owner, event.type, SEALED_FIELDS, sealed));
    if (!isObject(opened)) throw new PersonalDataError(`Sealed fields of a ${event.type} are not an object`);
    values = opened;
  }
  const data: Data = { ...source };
  for (const field of spec.fields) {
    if (!isEncrypted(data[field])) continue;
    const value = values[field];
    data[field] = typeof value === 'string' ? value : ERASED_VALUE;
  }
  return { ...event, data };
}

function erasedMembers(events: readonly { type: string; data: unknown }[]): string[] {
  const ids: string[] = [];
  for (const event of events) {
    if (event.type !== ERASURE_EVENT.type || !isObject(event.data)) continue;
    const id = event.data[ERASURE_EVENT.owner];
    if (typeof id === 'string') ids.push(id);
  }
  return ids;
}

function isObject(value: unknown): value is Data {
  return typeof value === 'object' && value !== null;
}
