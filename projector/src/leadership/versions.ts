import { leaseKeys } from '../read-models/redis/fencing';
import { keyspacePrefix } from '../read-models/redis/keys';
import { BUILD_KEYSPACE_PREFIX } from '../read-models/port';
import type { RedisConnection } from '../read-models/redis-admin';

/** The keyspace a projection version builds beside the active one (one per version, so a successor resumes it). */
export const buildKeyspaceId = (fingerprint: string): string => `${BUILD_KEYSPACE_PREFIX}${fingerprint.slice(0, 12)}`;

/**
 * What blue/green upgrades keep in the read-models Redis: the projection fingerprint of each
 * keyspace (`<keyspace>fingerprint`, the code that projected it) and the handover (the version
 * whose keyspace has caught up and is taking readers over; the others stand by while it is set).
 */
export class ProjectionVersions {
  private readonly handoverKey: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly root: string,
    /** This process's projection fingerprint. */
    readonly fingerprint: string,
  ) {
    const { active } = leaseKeys(root);
    this.handoverKey = `${root}:handover{${active}}`;
  }

  private fingerprintKey(id: string): string {
    return `${keyspacePrefix(this.root, id)}fingerprint`;
  }

  /** The fingerprint of the code that projected keyspace `id`; null for one projected before fingerprints were kept. */
  async fingerprintOf(id: string): Promise<string | null> {
    return await this.redis.get(this.fingerprintKey(id));
  }

  /** Marks keyspace `id` as projected by this code (only if it is not marked yet). */
  async claim(id: string): Promise<void> {
    await this.redis.set(this.fingerprintKey(id), this.fingerprint, 'NX');
  }

  /** The version taking readers over, if any. */
  async handover(): Promise<string | null> {
    return await this.redis.get(this.handoverKey);
  }

  /** Says this version is taking readers over, for `ttlMs` (renewed while it is true). */
  async offerHandover(ttlMs: number): Promise<void> {
    await this.redis.set(this.handoverKey, this.fingerprint, 'PX', ttlMs);
  }
}
