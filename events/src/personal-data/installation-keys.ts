/**
 * Keys of the installation itself, kept in the key store beside the members' (so they live,
 * move and are backed up with them, and every process of a distributed site reads the same one),
 * under ids no member id takes: member ids are UUIDs, these hold a ':'.
 */
import type { KeyStore } from './key-store';

/** Keys the names of e-mail streams (`emailStreams` in events/src/streams.ts). */
export const EMAIL_STREAM_KEY_ID = 'installation:email-streams';

/** The installation key `id`; created (once, whoever asks first) with `create`. */
export async function installationKey(keys: KeyStore, id: string, options: { create?: boolean } = {}): Promise<Buffer | undefined> {
  return (await keys.keysFor([id], options.create ? { create: true } : {})).get(id);
}
