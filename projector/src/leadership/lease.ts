import type { Fencing } from '../read-models/redis/fencing';
import { leaseKeys } from '../read-models/redis/fencing';
import { loadLua, runLua } from '../read-models/redis/lua';
import type { RedisConnection } from '../read-models/redis-admin';

const LEASE = loadLua(new URL('./lease.lua', import.meta.url));

/**
 * The lease's time to live in Redis, as a share of `leaseMs`: a standby takes an unreleased lease
 * when it expires, and the first batch follows, so failover stays within `leaseMs`.
 */
const TTL_SHARE = 0.8;
/**
 * Of that time to live, the share this process trusts itself to still hold it after a renewal
 * was sent: Redis counts the lease from when it got the renewal, later than it was sent, and the
 * two clocks may run at slightly different rates.
 */
const TRUSTED_SHARE = 0.8;

/** What a renewal found: whether this instance holds the lease, who does, and for how long yet (ms). */
export interface LeaseView {
  held: boolean;
  holder: string | null;
  epoch: number;
  msLeft: number;
}

export class LeaseLostError extends Error {
  constructor(instance: string) {
    super(`Projector ${instance} no longer holds the lease; it writes nothing until it leads again`);
    this.name = 'LeaseLostError';
  }
}

/**
 * The projectors' lease in the read-models Redis (lease.lua), beside the key that names the
 * keyspace readers use. Its epoch is the fencing token every write of the holder carries.
 */
export class RedisLease implements Fencing {
  private epoch = 0;
  /** performance.now() after which this process no longer counts on holding the lease. */
  private trustedUntil = 0;
  private readonly keys: { lease: string; epoch: string };
  /** The lease's time to live in Redis. */
  readonly ttlMs: number;

  constructor(
    private readonly redis: RedisConnection,
    root: string,
    readonly instance: string,
    /** The longest a group goes without a leader when its leader dies unannounced. */
    readonly leaseMs: number,
    /** Another lease than the leaders' (a version's builder's); its epochs come from the same counter. */
    name?: string,
  ) {
    const keys = leaseKeys(root);
    this.keys = { lease: name ? `${root}:${name}{${keys.active}}` : keys.lease, epoch: keys.epoch };
    this.ttlMs = Math.max(1, Math.round(leaseMs * TTL_SHARE));
  }

  /** Takes the lease when it is free, renews it when this instance holds it. */
  async renew(): Promise<LeaseView> {
    const sentAt = performance.now();
    const [held, holder, epoch, msLeft] = (await runLua(this.redis, LEASE, 2, [this.keys.lease, this.keys.epoch, this.instance, this.ttlMs, 'renew'])) as [number, string, number, number];
    if (held === 1) {
      this.epoch = epoch;
      this.trustedUntil = sentAt + this.ttlMs * TRUSTED_SHARE;
    } else this.trustedUntil = 0;
    return { held: held === 1, holder: holder || null, epoch, msLeft };
  }

  /** Gives the lease up (a graceful stop), so a standby takes over at its next try. */
  async release(): Promise<void> {
    this.trustedUntil = 0;
    await runLua(this.redis, LEASE, 2, [this.keys.lease, this.keys.epoch, this.instance, this.ttlMs, 'release']);
  }

  /** Whether this process may still write, by its own clock. */
  holds(): boolean {
    return performance.now() < this.trustedUntil;
  }

  token(): number {
    if (!this.holds()) throw new LeaseLostError(this.instance);
    return this.epoch;
  }
}
