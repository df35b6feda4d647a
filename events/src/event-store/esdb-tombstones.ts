/**
 * Hard deletes in EventStoreDB/KurrentDB, for tools (never the product, which deletes nothing):
 * `tombstoneStream` closes a stream for good. As the server's documentation says, the tombstone
 * itself (the stream's name, type `$streamDeleted`) is never scavenged, the stream's events leave
 * the database at the next scavenge, and reads of `$all` return them until then.
 */
import type { EventStoreDBClient, StreamDeletedError } from '@eventstore/db-client';

export interface StreamTombstones {
  /** Hard-deletes the stream; one already deleted is left as it is. */
  tombstone(streamId: string): Promise<void>;
  close(): Promise<void>;
}

export type EsdbTombstoneClient = Pick<EventStoreDBClient, 'tombstoneStream' | 'dispose'>;

/** `deleted`: the client's StreamDeletedError (passed in: the gRPC client loads only when a tool asks). */
export function esdbTombstones(client: EsdbTombstoneClient, deleted: typeof StreamDeletedError): StreamTombstones {
  return {
    async tombstone(streamId) {
      try {
        await client.tombstoneStream(streamId);
      } catch (error) {
        if (!(error instanceof deleted)) throw error;
      }
    },
    close: () => client.dispose(),
  };
}

/** A client of its own on the store's URL (`esdb://…`, `kurrentdb://…`). */
export async function openEsdbTombstones(url: string): Promise<StreamTombstones> {
  const [{ EventStoreDBClient, StreamDeletedError: deleted }, { toEsdbConnectionString }] = await Promise.all([import('@eventstore/db-client'), import('./esdb')]);
  return esdbTombstones(EventStoreDBClient.connectionString(toEsdbConnectionString(url)), deleted);
}
