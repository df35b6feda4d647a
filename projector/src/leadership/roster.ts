import type { ProjectionStatus } from '@pass/events';
import { leaseKeys } from '../read-models/redis/fencing';
import type { RedisConnection } from '../read-models/redis-admin';

type Member = NonNullable<ProjectionStatus['leadership']>['members'][number];
/** As stored: with the writer's lease, which says how long the entry counts. */
type Entry = Member & { leaseMs: number };

/** The hash where each projector of the group says what it is, at every lease tick. */
export const rosterKey = (root: string): string => `${root}:projectors`;

/** How long an entry counts (a projector that stopped ticking is gone), in lease periods. */
const SEEN_WITHIN_LEASES = 3;
/** Entries older than this are deleted by the leader (names with a process id change at every restart). */
const FORGOTTEN_AFTER_MS = 60 * 60 * 1000;

/** What one projector writes of itself. */
export async function writeRosterEntry(redis: RedisConnection, root: string, member: Omit<Entry, 'seenAt'>): Promise<void> {
  const entry: Entry = { ...member, seenAt: new Date().toISOString() };
  await redis.hset(rosterKey(root), member.instance, JSON.stringify(entry));
}

/** Deletes entries no projector has renewed for an hour. */
export async function pruneRoster(redis: RedisConnection, root: string, now = Date.now()): Promise<void> {
  const entries = await redis.hgetall(rosterKey(root));
  const old = Object.entries(entries).filter(([, raw]) => now - Date.parse((JSON.parse(raw) as Member).seenAt) > FORGOTTEN_AFTER_MS);
  if (old.length > 0) await redis.hdel(rosterKey(root), ...old.map(([name]) => name));
}

/** The group as the admin's panel shows it: the lease's holder and epoch, the projectors seen lately. */
export async function readLeadership(redis: RedisConnection, root: string, now = Date.now()): Promise<NonNullable<ProjectionStatus['leadership']>> {
  const [lease, entries] = await Promise.all([redis.hgetall(leaseKeys(root).lease), redis.hgetall(rosterKey(root))]);
  const members = Object.values(entries)
    .map((raw) => JSON.parse(raw) as Entry)
    .filter((entry) => now - Date.parse(entry.seenAt) <= SEEN_WITHIN_LEASES * entry.leaseMs)
    .map(({ instance, role, seenAt }) => ({ instance, role, seenAt }))
    .sort((a, b) => a.instance.localeCompare(b.instance));
  return { holder: lease.holder ?? null, epoch: Number(lease.epoch ?? 0), members };
}
