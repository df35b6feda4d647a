import { comparePositions, START, type EventStore } from '@pass/events';
import { EMAIL_STREAM_KEY_ID, EncryptingEventStore, installationKey } from '@pass/events/personal-data';

/** How an operator learns that the store predates keyed e-mail stream names, and what to do. */
export const UNKEYED_STORE_MESSAGE =
  'the event store names e-mail streams by the unkeyed SHA-256 of the address (written before keyed names): ' +
  'stop the site, back it up, then run: npm run migrate:email-streams -- --confirm (docs/architecture.md, "Personal data")';

/**
 * The installation's key for e-mail stream names, from the key store beside the events, so every
 * command-api of a distributed site reads the same one and it moves and is backed up with the
 * members' keys. The first start on an empty store makes it. A store that holds events but no
 * key was written before keyed names: refused, since a join there would not find the address's
 * reservation and would register it a second time.
 */
export async function emailStreamKeyOf(eventStore: EventStore): Promise<Buffer> {
  if (!(eventStore instanceof EncryptingEventStore)) throw new Error('command-api runs on the personal-data event store (openPersonalDataEventStore)');
  const found = await installationKey(eventStore.keys, EMAIL_STREAM_KEY_ID);
  if (found) return found;
  if (comparePositions(await eventStore.headPosition(), START) !== 0) throw new Error(UNKEYED_STORE_MESSAGE);
  return (await installationKey(eventStore.keys, EMAIL_STREAM_KEY_ID, { create: true }))!;
}
