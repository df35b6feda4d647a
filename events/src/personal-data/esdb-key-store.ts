/**
 * Member keys in EventStoreDB/KurrentDB: one stream per member, `member-key-<id>`, holding one
 * event of the system-style type `$member-key` (so the event-store adapter's reads of $all, which
 * leave out `$` types, never deliver it). Destroying a key tombstones its stream: the key can
 * never be read or written again at once; its bytes leave the database's chunk files at the next
 * scavenge, which the operator runs (or schedules) after an erasure (docs/architecture.md,
 * "Personal data").
 */
import { FORWARDS, jsonEvent, NO_STREAM, START, StreamDeletedError, StreamNotFoundError, WrongExpectedVersionError, type EventStoreDBClient } from '@eventstore/db-client';
import { KEY_BYTES, newKey } from './cipher';
import type { KeysForOptions, KeyStore } from './key-store';

export type EsdbKeyClient = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'tombstoneStream' | 'dispose'>;

export const KEY_EVENT_TYPE = '$member-key';
const stream = (memberId: string) => `member-key-${memberId}`;
/** Members looked up at once: one read each, in parallel. */
const PARALLEL = 32;

export class EsdbKeyStore implements KeyStore {
  constructor(private readonly client: EsdbKeyClient) {}

  async keysFor(memberIds: readonly string[], options: KeysForOptions = {}): Promise<Map<string, Buffer>> {
    const ids = [...new Set(memberIds)];
    const found = new Map<string, Buffer>();
    for (let i = 0; i < ids.length; i += PARALLEL) {
      await Promise.all(
        ids.slice(i, i + PARALLEL).map(async (id) => {
          const key = await this.keyOf(id, options.create ?? false);
          if (key) found.set(id, key);
        }),
      );
    }
    return found;
  }

  async destroy(memberId: string): Promise<void> {
    try {
      await this.client.tombstoneStream(stream(memberId));
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  private async keyOf(id: string, create: boolean): Promise<Buffer | undefined> {
    const existing = await this.read(id);
    if (existing !== undefined) return existing ?? undefined;
    if (!create) return undefined;
    const key = newKey();
    try {
      await this.client.appendToStream(stream(id), jsonEvent({ type: KEY_EVENT_TYPE, data: { key: key.toString('base64') } }), { expectedRevision: NO_STREAM });
      return key;
    } catch (error) {
      if (error instanceof StreamDeletedError) return undefined;
      // Another process created it first: theirs is the key.
      if (error instanceof WrongExpectedVersionError) return (await this.read(id)) ?? undefined;
      throw error;
    }
  }

  /** The key; null when destroyed; undefined when the member never had one. */
  private async read(id: string): Promise<Buffer | null | undefined> {
    try {
      for await (const resolved of this.client.readStream(stream(id), { direction: FORWARDS, fromRevision: START, maxCount: 1 })) {
        const data = resolved.event?.data as { key?: unknown } | undefined;
        const key = Buffer.from(typeof data?.key === 'string' ? data.key : '', 'base64');
        if (key.length !== KEY_BYTES) throw new Error(`Key stream of a member holds a malformed key`);
        return key;
      }
      return undefined;
    } catch (error) {
      if (error instanceof StreamDeletedError) return null;
      if (error instanceof StreamNotFoundError) return undefined;
      throw error;
    }
  }
}
