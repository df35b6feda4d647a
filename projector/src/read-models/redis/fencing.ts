/**
 * Fencing of the read models' writers: a projector that leads by lease (projector/src/leadership)
 * writes with the lease's epoch, and a keyspace refuses an epoch older than the newest it has seen.
 * So a leader that was paused past its lease, or cut off, cannot overwrite its successor's work.
 */
export interface Fencing {
  /**
   * The epoch to write with. Throws when this process no longer holds a lease by its own clock,
   * so nothing is even sent after the lease ran out.
   */
  token(): number;
}

/** A write refused because a newer leader's epoch fences the keyspace. */
export class FencedWriteError extends Error {
  constructor(keyspace: string, epoch: string) {
    super(`Read models ${keyspace} are fenced by a newer projector leader (this write's epoch ${epoch}); this projector stands by`);
    this.name = 'FencedWriteError';
  }
}

/**
 * Where a root's lease lives: in `<root>:active`'s hash slot (their hash tag is that key's whole
 * name), so the script that switches readers can check it, and under the root like every key.
 */
export function leaseKeys(root: string): { active: string; lease: string; epoch: string } {
  const active = `${root}:active`;
  return { active, lease: `${root}:lease{${active}}`, epoch: `${root}:lease-epoch{${active}}` };
}
