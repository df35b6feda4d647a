import type { SearchText } from './search-text';
import type { ChatMessageView, GlobalPostView, Image, Priority, ProgressDay } from '@pass/events';

/**
 * The stored shapes of the read models. Both adapters hold exactly these values, so the same
 * batch of writes gives the same read model in memory and in Redis.
 */

/** Site-wide figures (docs/architecture.md, "Read side"). `fundsRaised` is derived on read, never stored. */
export interface MainRecord {
  available: number;
  sold: number;
  /** Ad views: +1 per FreePointAwarded (one /content/check countdown = one ad shown), set by AdViewsReset. */
  views: number;
  cpm: number;
  donations: number;
  startDate: string;
  purchasesUsd: number;
  /** Users with passes > 0. */
  members: number;
  /** Chat messages sent since the last ChatCleared. */
  globalMessages: number;
  /** Registrations so far; gives each user its ordinal, the tie-break of the ranking (earlier first). */
  userSeq: number;
}

export const emptyMain = (): MainRecord => ({
  available: 0,
  sold: 0,
  views: 0,
  cpm: 0,
  donations: 0,
  startDate: '',
  purchasesUsd: 0,
  members: 0,
  globalMessages: 0,
  userSeq: 0,
});

/** One registered user as the ranking, registry and search need it. */
export interface UserRow {
  userId: string;
  /** Fixed-width ordinal (see `rankKey`); the member of every sorted set. */
  key: string;
  email: string;
  priority: Priority;
  points: number;
  passes: number;
  /** USD bought, net of reversals (the spec's `buyed`). */
  buyed: number;
  fullname: string;
  country: string;
  link: string;
  image: Image | null;
  message: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * A copy with every field written out in one order, so every row in the projections and the
 * memory store has the same shape (a spread copy of a row parsed from JSON, or of one built
 * another way, does not), which keeps the hot functions from being de-optimised and recompiled.
 */
export function copyRow(row: UserRow): UserRow {
  return {
    userId: row.userId,
    key: row.key,
    email: row.email,
    priority: row.priority,
    points: row.points,
    passes: row.passes,
    buyed: row.buyed,
    fullname: row.fullname,
    country: row.country,
    link: row.link,
    image: row.image,
    message: row.message,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Sorted sets. `users` holds every registered user, scored `-passes` so members (passes > 0)
 * come first and equal scores fall back to the key, i.e. registration order. `ix:<token>` is the
 * search index: the same members and scores, restricted to one token, so a filtered page is a
 * range read, never a scan; `ix:<a>+<b>` to rows with words starting with two keys (pairSet in search.ts); `ix:@<token>` is registry-only (masked e-mails). E-mails (one user each) are a plain lookup, not a set per address.
 */
export type SortedSetName = 'users' | `ix:${string}`;

/** The low-level writes a projection produces; adapters apply them verbatim. */
export type ReadModelWrite =
  | { op: 'main'; main: MainRecord }
  | { op: 'user'; row: UserRow }
  | { op: 'zadd'; set: SortedSetName; member: string; score: number }
  /** Many members of one set at once (an index built in one pass: IndexState). */
  | { op: 'zaddMany'; set: SortedSetName; entries: Array<[member: string, score: number]> }
  | { op: 'zrem'; set: SortedSetName; member: string }
  /** Exact e-mail lookup for the registry search: lower-cased e-mail → rank key. */
  | { op: 'email'; email: string; member: string }
  | { op: 'country'; country: string; delta: number }
  | { op: 'chatPush'; message: ChatMessageView }
  | { op: 'chatClear' }
  | { op: 'posts'; posts: GlobalPostView[] }
  /** An erased member leaves the registry: row, id lookup and e-mail lookup (normalized, '' for none). */
  | { op: 'userRemove'; userId: string; key: string; email: string }
  /** An erased member's lines leave the chat history. */
  | { op: 'chatDropUser'; userId: string }
  /** Where the keyspace's search index stands (IndexState). */
  | { op: 'indexState'; state: 'deferred' | 'complete' }
  /**
   * What a search finds a row by (search-text.ts), written when it changes; null: the row was
   * erased. Scores come from the `users` writes.
   */
  | { op: 'searchText'; key: string; text: SearchText | null }
  /**
   * One day of the progress read model, replacing what is stored for its date. A batch writes
   * the last stored day or days after it, oldest first (never an earlier day: projections/progress.ts).
   */
  | { op: 'progressDay'; day: ProgressDay };

/**
 * A keyspace's search index (the `ix:*` sets):
 * - complete: every row is in its sets, and each batch keeps them so;
 * - deferred: a catch-up from an empty keyspace writes rows without their index sets, and
 *   builds them once, from the final rows, when it has caught up (a member's sets are written
 *   once instead of again at each change of their passes: docs/architecture.md, "Search index
 *   built after a catch-up"); meanwhile searches find nothing;
 * - outdated: projected by older index code; the projector rebuilds it into a fresh keyspace.
 */
export type IndexState = 'complete' | 'deferred' | 'outdated';

export interface WriteBatch {
  /** Checkpoint the keyspace must hold for the batch to apply (null: nothing projected yet). */
  expectedCheckpoint: string | null;
  /** Global position of the last event of the batch. */
  checkpoint: string;
  writes: ReadModelWrite[];
}

/** What a batch's projections read before they run. */
export interface BatchSnapshot {
  checkpoint: string | null;
  main: MainRecord;
  users: Map<string, UserRow>;
  posts: GlobalPostView[];
  /** The progress read model's last day (null: none yet); earlier days never change. */
  progressDay: ProgressDay | null;
}

/** Chat messages kept for the panel and getChatMessages. */
export const CHAT_HISTORY_LIMIT = 100;
/** Newest global posts kept (one per member) so deleting a post can fall back to the previous one. */
export const GLOBAL_POSTS_LIMIT = 20;

export interface UserPageQuery {
  /** Members only (ranking) or every registered user (registry). */
  membersOnly: boolean;
  /** Index sets from `parseQuery` (search.ts); all must match. Empty: no filter. */
  sets: Array<`ix:${string}`>;
  /** Registry only (`parseQuery`): rows matching all of these sets match too. */
  registrySets?: Array<`ix:${string}`>;
  /** Exact, lower-cased e-mail (registry search); with it, `sets` is ignored. */
  email?: string;
  /**
   * Any part of a token (search-text.ts), answered by the text index where the keyspace has one
   * (always in memory; in Redis once the reader's mirror is loaded), else by `sets`.
   */
  text?: TextSearch;
  offset: number;
  limit: number;
}

/** The terms of a search box (searchTerms) and where it is typed. */
export interface TextSearch {
  terms: string[];
  /** The registry: rows shown by a masked e-mail are found by what it shows. */
  registry: boolean;
  /** Only rows whose card is on the site (the admin's posts). */
  posted: boolean;
}

export interface UserPage {
  total: number;
  /** 'text': the text index answered `text` (any part of a token); otherwise the sets did. */
  matchedBy?: 'text';
  /** Rows with their 1-based rank in the unfiltered order. */
  rows: Array<{ rank: number; row: UserRow }>;
}

export interface CountriesRecord {
  distinct: number;
  top: Array<{ country: string; users: number }>;
}

/** A whole keyspace as plain data, for comparisons (memory vs Redis, rebuild vs crash recovery). */
export interface ReadModelDump {
  checkpoint: string | null;
  main: MainRecord;
  rows: UserRow[];
  sets: Record<string, Array<[member: string, score: number]>>;
  emails: Array<[email: string, member: string]>;
  countries: Array<[country: string, users: number]>;
  chat: ChatMessageView[];
  posts: GlobalPostView[];
  /** The progress read model's stored days, oldest first. */
  progress: ProgressDay[];
}

/** The last stored progress day (null: none yet) and the number of days stored. */
export interface ProgressTail {
  last: ProgressDay | null;
  days: number;
}
