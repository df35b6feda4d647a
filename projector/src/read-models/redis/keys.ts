import type { RedisConnection } from '../redis-admin';
import type { IndexState } from '../types';

/** The channel every applied batch announces its keyspace's id on. */
export const changesChannel = (root: string): string => `${root}:changed`;

/**
 * Where one keyspace's keys start. The braces are a hash tag: on a Redis Cluster every key of a
 * keyspace hashes to the same slot, which the apply script needs (it writes all of them and the
 * checkpoint as one atomic step) and so do the page script and the MULTIs that read several.
 * Keyspaces of one deployment land on different slots, `<root>:active` on its own.
 */
export const keyspacePrefix = (root: string, id: string): string => `${root}:{${id}}:`;

// The key layout under `<root>:{<keyspace>}:` (keyspacePrefix) is tabled in projector/README.md,
// "Read models": rows, `uid`, the sorted sets (SortedSetName), e-mails, countries, chat, posts,
// the progress days, `tmp:*` intersections and the index and progress markers; `<root>:active` names the keyspace readers use.

/**
 * Present in a keyspace projected from its start with the current search index (word prefixes,
 * pair sets of word starts, masked e-mail sets, the posted set), once that index is complete (IndexState). A new
 * name for each new index: a keyspace without it (nor INDEX_DEFERRED) is read without pair sets
 * and re-projected at start (ReadModelStore.outdated).
 */
export const INDEX_MARKER = 'index:prefix-v3';
/**
 * Present in a keyspace projected from its start by code that keeps the progress read model
 * (`progress`: day → JSON, `progress:last`: the latest day's date), set by its first batch. A
 * keyspace holding a checkpoint without it lacks the days before that code: it is re-projected
 * at start like one of an older index (ReadModelStore.outdated).
 */
export const PROGRESS_MARKER = 'progress:v1';
/**
 * Entries the text log keeps (`text:log`, a stream: apply.lua): each batch's changes to `text`
 * (the rows' search records) and to `users`' scores, which readers' text indexes follow
 * (text-mirror.ts). A reader further behind than this loads the records again.
 */
export const TEXT_LOG_ENTRIES = 512;

/**
 * Present in a keyspace projected from its start by code that keeps the rows' search records
 * (`text`) and the text log, set by its first batch: without it a reader has no text index to load
 * (text-mirror.ts), and a keyspace holding a checkpoint without it is re-projected at start.
 */
export const TEXT_MARKER = 'text:v1';

/** Present while a keyspace's index is deferred (IndexState): its catch-up builds it at the end. */
export const INDEX_DEFERRED = 'index:deferred';

/** IndexState of the keyspace under `prefix`: an empty one's is deferred (nothing indexed yet). */
export async function indexStateAt(redis: RedisConnection, prefix: string): Promise<IndexState> {
  const [complete, deferred, projected] = await Promise.all([redis.exists(`${prefix}${INDEX_MARKER}`), redis.exists(`${prefix}${INDEX_DEFERRED}`), redis.exists(`${prefix}checkpoint`)]);
  if (complete === 1) return 'complete';
  return deferred === 1 || projected === 0 ? 'deferred' : 'outdated';
}

/**
 * Whether the keyspace under `prefix` holds read models older code projected (ReadModelStore.outdated):
 * its index is outdated, or it has a checkpoint but not the progress read model or the search records from its start.
 */
export async function outdatedAt(redis: RedisConnection, prefix: string): Promise<boolean> {
  if ((await indexStateAt(redis, prefix)) === 'outdated') return true;
  const [projected, progress, text] = await Promise.all([redis.exists(`${prefix}checkpoint`), redis.exists(`${prefix}${PROGRESS_MARKER}`), redis.exists(`${prefix}${TEXT_MARKER}`)]);
  return projected === 1 && (progress === 0 || text === 0);
}

/** A value stored as JSON under one of those keys, or `fallback` when the key is missing (an empty keyspace). */
export const parseJson = <T>(raw: string | null | undefined, fallback: T): T => (raw ? (JSON.parse(raw) as T) : fallback);
