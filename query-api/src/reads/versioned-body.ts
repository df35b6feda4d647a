import { readCheckpoint, type CheckpointOf, type Keyspace } from '@pass/projector';
import { prepareJson, type PreparedJson } from '@pass/events';

/**
 * A JSON body every visitor shares (the headline figures, the country top 5), serialised once per
 * state of the read models instead of once per request. The version is the active keyspace and
 * its checkpoint: the projector moves the checkpoint with every batch it stores and a rebuild
 * switches keyspaces, so a body is reused only while nothing at all was projected. Checking costs
 * one small read (the checkpoint), or none where `checkpointOf` keeps it until the projector
 * announces a batch (WatchedCheckpoints); reading and serialising the view happens only after a
 * change. A hit returns the very same PreparedJson, so a lane can key its ETag on it and hash nothing.
 */
export function versionedBody(build: (ks: Keyspace) => Promise<unknown>, checkpointOf: CheckpointOf = readCheckpoint): (ks: Keyspace) => Promise<PreparedJson> {
  return versionedPrepared(async (ks) => prepareJson(await build(ks)), checkpointOf);
}

/** versionedBody for a builder that serialises the body itself (one that reuses parts of the previous one). */
export function versionedPrepared(build: (ks: Keyspace) => Promise<PreparedJson>, checkpointOf: CheckpointOf = readCheckpoint): (ks: Keyspace) => Promise<PreparedJson> {
  let cached: { version: string; body: PreparedJson } | null = null;
  return async (ks) => {
    const version = `${ks.id}@${(await checkpointOf(ks)) ?? ''}`;
    if (cached?.version === version) return cached.body;
    // Built after reading the checkpoint, so the body is at least as new as the version it is
    // kept under; a body newer than its version is merely rebuilt once more on the next change.
    const body = await build(ks);
    cached = { version, body };
    return body;
  };
}
