import type { ChatHistory, GlobalPostView, ProgressDay } from '@pass/events';
import type {
  BatchSnapshot,
  ProgressTail,
  CountriesRecord,
  IndexState,
  MainRecord,
  ReadModelDump,
  UserPage,
  UserPageQuery,
  UserRow,
  WriteBatch,
} from './types';

/**
 * One complete set of read models. The live keyspace serves readers; a rebuild fills a fresh
 * one from position 0 and the store then switches readers over in one step.
 */
export interface Keyspace {
  readonly id: string;
  /**
   * The keyspace lives in this process: `apply` has stored a batch's writes when it returns, and
   * reading rows back costs no round trip. A catch-up then keeps no copy of the rows it has
   * stored (CatchUpMirror), which at a million members would double the rows held in memory.
   */
  readonly inProcess: boolean;

  // ---- projector side
  /** Global position of the last event whose writes are stored here, or null. */
  checkpoint(): Promise<string | null>;
  /** Current values the projections of a batch start from. */
  snapshot(userIds: Iterable<string>): Promise<BatchSnapshot>;
  /**
   * Applies every write and the new checkpoint atomically, only if the stored checkpoint still
   * equals `expectedCheckpoint`. 'stale' means another writer got there first: nothing changed.
   */
  apply(batch: WriteBatch): Promise<'applied' | 'stale'>;
  /** Where the search index stands; an empty keyspace's is 'deferred' (nothing indexed yet). */
  indexState(): Promise<IndexState>;
  /** Every stored row, page by page (a deferred index whose catch-up was cut off reloads them). */
  storedRows(): AsyncIterable<UserRow[]>;
  /** Deletes every search-index set (before a deferred index is built again from the rows). */
  dropIndex(): Promise<void>;

  // ---- query side
  main(): Promise<MainRecord>;
  countries(limit: number): Promise<CountriesRecord>;
  users(query: UserPageQuery): Promise<UserPage>;
  /**
   * Gets ready to answer `text` searches from a text index (a Redis reader loads its copy: until
   * then they read the word-start sets) and answers whether they now do.
   */
  prepareSearch(): Promise<boolean>;
  userById(userId: string): Promise<UserRow | null>;
  chat(limit: number): Promise<ChatHistory>;
  /** Newest first. */
  posts(): Promise<GlobalPostView[]>;
  /** The progress read model: the days on which something was counted, oldest first (gaps are filled on read: continuousProgress). */
  progress(): Promise<ProgressDay[]>;
  /**
   * The last stored progress day and how many days are stored: all a reader needs after a batch,
   * since a batch only ever rewrites the last day or adds days after it.
   */
  progressTail(): Promise<ProgressTail>;

  /** Everything, for comparisons and support. Not for request paths. */
  dump(): Promise<ReadModelDump>;
}

export interface ReadModelStore {
  readonly kind: 'memory' | 'redis';
  /** Id of the keyspace readers use; created on first use. */
  activeId(): Promise<string>;
  /** The keyspace readers use now. */
  active(): Promise<Keyspace>;
  keyspace(id: string): Keyspace;
  /** Points readers at `id` in one step. */
  activate(id: string): Promise<void>;
  /** Deletes a keyspace that is no longer active. */
  drop(id: string): Promise<void>;
  /** Ids of every keyspace holding a checkpoint (e.g. one left by a rebuild that crashed). */
  list(): Promise<string[]>;
  /**
   * Whether keyspace `id` holds read models projected by older index code (the search index
   * changed since): the projector rebuilds it at start. Memory read models never are (they are
   * projected at each start, or loaded from a snapshot of the same projection code).
   */
  outdated(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A new keyspace id, sortable by creation time. */
export function newKeyspaceId(now = new Date()): string {
  return `ks${now.getTime().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export const INITIAL_KEYSPACE = 'ks0';
/** Keyspaces a new projection version builds beside the active one (projector/src/leadership) start so. */
export const BUILD_KEYSPACE_PREFIX = 'bg-';
