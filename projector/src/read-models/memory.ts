import { assertNever, type ChatHistory, type ChatMessageView, type GlobalPostView } from '@pass/events';
import { INITIAL_KEYSPACE, type Keyspace, type ReadModelStore } from './port';
import { searchPlan, UNPAIRED_SET, type SearchPlan } from './search';
import { SortedList, type Chunk, type Entry } from './sorted-list';

/** Rows per page of `storedRows()`. */
const ROWS_PAGE = 5_000;
/** Multi-word search results are kept this long, as in the Redis adapter. */
const INTERSECTION_TTL_MS = 10_000;

/** The rows a search matches: an index set read as it is, or an intersection kept a while. */
type Matches = SortedList | Array<{ member: string; score: number }>;

/** The part of a match a page reads: members only (a prefix: their scores are negative) or all. */
interface Scope {
  size: number;
  slice(start: number, stop: number): Entry[];
}

function inScope(matches: Matches | undefined, membersOnly: boolean): Scope {
  if (matches === undefined) return { size: 0, slice: () => [] };
  if (matches instanceof SortedList) {
    return { size: membersOnly ? matches.countBelow(0) : matches.size, slice: (start, stop) => matches.range(start, stop) };
  }
  const firstNonMember = matches.findIndex((e) => e.score >= 0);
  return { size: membersOnly && firstNonMember >= 0 ? firstNonMember : matches.length, slice: (start, stop) => matches.slice(start, stop) };
}

const before = (x: Entry, y: Entry) => x.score < y.score || (x.score === y.score && x.member < y.member);

/**
 * Ranks [start, stop) of the union of two matches holding different rows, as the Redis adapter
 * pages it: bisection for how many of the first `start` rows are a's, then one range of each.
 */
function mergedPage(a: Scope, b: Scope, start: number, stop: number): { total: number; entries: Entry[] } {
  const total = a.size + b.size;
  if (start >= total) return { total, entries: [] };
  let lo = Math.max(0, start - b.size);
  let hi = Math.min(start, a.size);
  while (lo < hi) {
    const i = Math.floor((lo + hi) / 2);
    if (before(a.slice(i, i + 1)[0]!, b.slice(start - i - 1, start - i)[0]!)) lo = i + 1;
    else hi = i;
  }
  const size = stop - start;
  const xa = a.slice(lo, Math.min(lo + size, a.size));
  const xb = b.slice(start - lo, Math.min(start - lo + size, b.size));
  const entries: Entry[] = [];
  let p = 0;
  let q = 0;
  while (entries.length < size && (p < xa.length || q < xb.length)) {
    if (q >= xb.length || (p < xa.length && before(xa[p]!, xb[q]!))) entries.push(xa[p++]!);
    else entries.push(xb[q++]!);
  }
  return { total, entries };
}
import {
  CHAT_HISTORY_LIMIT,
  copyRow,
  emptyMain,
  type BatchSnapshot,
  type CountriesRecord,
  type IndexState,
  type MainRecord,
  type ReadModelDump,
  type ReadModelWrite,
  type UserPage,
  type UserPageQuery,
  type UserRow,
  type WriteBatch,
} from './types';

/** Everything a memory keyspace holds, as plain data (for `memory-snapshot.ts`). */
export interface MemoryKeyspaceState {
  checkpoint: string | null;
  main: MainRecord;
  rows: UserRow[];
  sets: Array<[name: string, chunks: readonly Chunk[]]>;
  emails: Array<[email: string, member: string]>;
  countries: Array<[country: string, users: number]>;
  chat: ChatMessageView[];
  posts: GlobalPostView[];
  /** The last indexState write (null: none yet). */
  index: 'deferred' | 'complete' | null;
}

/**
 * Read models in process memory (standalone mode): rebuilt from the event store at start, or
 * restored from a snapshot and caught up from its checkpoint.
 * Writes of a batch are applied synchronously, so no reader ever sees half a batch.
 */
class MemoryKeyspace implements Keyspace {
  private cp: string | null = null;
  private mainRecord: MainRecord = emptyMain();
  private rows = new Map<string, UserRow>();
  private keyOf = new Map<string, string>();
  private sets = new Map<string, SortedList>();
  private emails = new Map<string, string>();
  private countryCounts = new Map<string, number>();
  private chatLog: ChatMessageView[] = [];
  private postList: GlobalPostView[] = [];
  private intersections = new Map<string, { at: number; entries: Array<{ member: string; score: number }> }>();
  private index: MemoryKeyspaceState['index'] = null;

  constructor(readonly id: string) {}

  /** The state as plain data, shared with the keyspace: serialise it before the next write. */
  exportState(): MemoryKeyspaceState {
    return {
      checkpoint: this.cp,
      main: this.mainRecord,
      rows: [...this.rows.values()],
      sets: [...this.sets].map(([name, list]) => [name, list.toChunks()]),
      emails: [...this.emails],
      countries: [...this.countryCounts],
      chat: this.chatLog,
      posts: this.postList,
      index: this.index,
    };
  }

  /** Replaces everything with `state` (taken, not copied). */
  importState(state: MemoryKeyspaceState): void {
    this.cp = state.checkpoint;
    this.mainRecord = state.main;
    this.rows = new Map(state.rows.map((row) => [row.key, row]));
    this.keyOf = new Map(state.rows.map((row) => [row.userId, row.key]));
    this.sets = new Map(state.sets.map(([name, chunks]) => [name, SortedList.fromChunks([...chunks])]));
    this.emails = new Map(state.emails);
    this.countryCounts = new Map(state.countries);
    this.chatLog = state.chat;
    this.postList = state.posts;
    this.index = state.index;
    this.intersections.clear();
  }

  async checkpoint(): Promise<string | null> {
    return this.cp;
  }

  async snapshot(userIds: Iterable<string>): Promise<BatchSnapshot> {
    const users = new Map<string, UserRow>();
    for (const id of userIds) {
      const key = this.keyOf.get(id);
      const row = key === undefined ? undefined : this.rows.get(key);
      // Shared, not copied: stored rows are never changed in place (a write replaces them) and
      // projectBatch copies a row before evolving it.
      if (row) users.set(id, row);
    }
    return { checkpoint: this.cp, main: { ...this.mainRecord }, users, posts: [...this.postList] };
  }

  async apply(batch: WriteBatch): Promise<'applied' | 'stale'> {
    if (this.cp !== batch.expectedCheckpoint) return 'stale';
    for (const w of batch.writes) this.write(w);
    this.cp = batch.checkpoint;
    return 'applied';
  }

  async indexState(): Promise<IndexState> {
    // Memory read models are never outdated (see ReadModelStore.outdated).
    return this.index ?? (this.cp === null ? 'deferred' : 'complete');
  }

  async *storedRows(): AsyncIterable<UserRow[]> {
    let page: UserRow[] = [];
    for (const row of this.rows.values()) {
      page.push(row);
      if (page.length === ROWS_PAGE) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  async dropIndex(): Promise<void> {
    for (const name of [...this.sets.keys()]) if (name.startsWith('ix:')) this.sets.delete(name);
    this.intersections.clear();
  }

  private write(w: ReadModelWrite): void {
    switch (w.op) {
      case 'main':
        this.mainRecord = { ...w.main };
        return;
      case 'user':
        this.rows.set(w.row.key, copyRow(w.row));
        this.keyOf.set(w.row.userId, w.row.key);
        return;
      case 'zadd': {
        let set = this.sets.get(w.set);
        if (!set) this.sets.set(w.set, (set = new SortedList()));
        set.add(w.member, w.score);
        return;
      }
      case 'zaddMany': {
        let set = this.sets.get(w.set);
        if (!set) this.sets.set(w.set, (set = new SortedList()));
        set.addMany(w.entries);
        return;
      }
      case 'indexState':
        this.index = w.state;
        return;
      case 'email':
        this.emails.set(w.email, w.member);
        return;
      case 'zrem': {
        const set = this.sets.get(w.set);
        if (set?.remove(w.member) && set.size === 0) this.sets.delete(w.set);
        return;
      }
      case 'country': {
        const n = (this.countryCounts.get(w.country) ?? 0) + w.delta;
        if (n > 0) this.countryCounts.set(w.country, n);
        else this.countryCounts.delete(w.country);
        return;
      }
      case 'chatPush':
        this.chatLog.push(w.message);
        if (this.chatLog.length > CHAT_HISTORY_LIMIT) this.chatLog.splice(0, this.chatLog.length - CHAT_HISTORY_LIMIT);
        return;
      case 'chatClear':
        this.chatLog = [];
        return;
      case 'posts':
        this.postList = [...w.posts];
        return;
      case 'userRemove':
        this.rows.delete(w.key);
        if (this.keyOf.get(w.userId) === w.key) this.keyOf.delete(w.userId);
        if (w.email && this.emails.get(w.email) === w.key) this.emails.delete(w.email);
        return;
      case 'chatDropUser':
        this.chatLog = this.chatLog.filter((m) => m.userId !== w.userId);
        return;
      default:
        assertNever(w);
    }
  }

  async main(): Promise<MainRecord> {
    return { ...this.mainRecord };
  }

  async countries(limit: number): Promise<CountriesRecord> {
    // Same order as the Redis adapter: most users first, ties alphabetical.
    const all = [...this.countryCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { distinct: all.length, top: all.slice(0, limit).map(([country, users]) => ({ country, users })) };
  }

  async users(query: UserPageQuery): Promise<UserPage> {
    const all = this.sets.get('users');
    if (!all) return { total: 0, rows: [] };
    if (query.email !== undefined) {
      const key = this.emails.get(query.email);
      const score = key === undefined ? undefined : all.score(key);
      if (key === undefined || score === undefined || (query.membersOnly && score >= 0) || query.offset > 0) {
        return { total: key !== undefined && score !== undefined && !(query.membersOnly && score >= 0) ? 1 : 0, rows: [] };
      }
      return { total: 1, rows: [{ rank: all.rank(key)! + 1, row: { ...this.rows.get(key)! } }] };
    }
    const plan = searchPlan(query.sets);
    const stop = query.offset + query.limit;
    let total: number;
    let entries: Array<{ member: string; score: number }>;
    if (query.registrySets) {
      ({ total, entries } = mergedPage(
        inScope(this.matching(plan), query.membersOnly),
        inScope(this.matching(searchPlan(query.registrySets)), query.membersOnly),
        query.offset,
        stop,
      ));
    } else {
      const source = inScope(plan.sets.length === 0 ? all : this.matching(plan), query.membersOnly);
      total = source.size;
      entries = source.slice(query.offset, Math.min(stop, total));
    }
    return {
      total,
      rows: entries.map((e) => ({ rank: all.rank(e.member)! + 1, row: { ...this.rows.get(e.member)! } })),
    };
  }

  /**
   * The rows in every set of the plan, as the Redis adapter finds them: one set or a pair set is
   * read as it is; more words walk the smallest pair set (or, without two words or when a row too
   * long to pair matches, the smallest set) and are kept a while. Undefined: no match.
   */
  private matching(plan: SearchPlan): Matches | undefined {
    const lists = plan.sets.map((n) => this.sets.get(n));
    if (lists.some((l) => !l)) return undefined;
    if (lists.length === 1) return lists[0];
    const cacheKey = plan.sets.join('\n');
    const now = Date.now();
    const cached = this.intersections.get(cacheKey);
    if (cached && now - cached.at < INTERSECTION_TTL_MS) return cached.entries;
    let walk = lists as SortedList[];
    const unpaired = this.sets.get(UNPAIRED_SET);
    const unpairedMatch = unpaired !== undefined && [...unpaired].some((e) => walk.every((l) => l.score(e.member) !== undefined));
    if (plan.pairs.length > 0 && !unpairedMatch) {
      let best = -1;
      for (let k = 0; k < plan.pairs.length; k++) {
        if (best < 0 || (this.sets.get(plan.pairs[k]!)?.size ?? 0) < (this.sets.get(plan.pairs[best]!)?.size ?? 0)) best = k;
      }
      const pair = this.sets.get(plan.pairs[best]!);
      if (!pair) return undefined;
      const [a, b] = plan.pairWords[best]!;
      walk = [pair, ...walk.filter((_, i) => i !== a && i !== b)];
      if (walk.length === 1) return pair;
    }
    const [smallest, ...rest] = [...walk].sort((x, y) => x.size - y.size);
    const entries: Array<{ member: string; score: number }> = [];
    smallest!.scan((e) => {
      for (const l of rest) if (l.score(e.member) === undefined) return;
      entries.push(e);
    });
    for (const [k, v] of this.intersections) if (now - v.at >= INTERSECTION_TTL_MS) this.intersections.delete(k);
    this.intersections.set(cacheKey, { at: now, entries });
    return entries;
  }

  async userById(userId: string): Promise<UserRow | null> {
    const key = this.keyOf.get(userId);
    const row = key === undefined ? undefined : this.rows.get(key);
    return row ? { ...row } : null;
  }

  async chat(limit: number): Promise<ChatHistory> {
    return { total: this.mainRecord.globalMessages, messages: this.chatLog.slice(-limit) };
  }

  async posts(): Promise<GlobalPostView[]> {
    return [...this.postList];
  }

  async dump(): Promise<ReadModelDump> {
    const sets: ReadModelDump['sets'] = {};
    for (const name of [...this.sets.keys()].sort()) {
      sets[name] = [...this.sets.get(name)!].map((e) => [e.member, e.score === 0 ? 0 : e.score]);
    }
    return {
      checkpoint: this.cp,
      main: { ...this.mainRecord },
      rows: [...this.rows.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
      sets,
      emails: [...this.emails].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      countries: [...this.countryCounts].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      chat: [...this.chatLog],
      posts: [...this.postList],
    };
  }
}

/** The memory adapter, which can also hand out and take back its active keyspace's state. */
export interface MemoryReadModelStore extends ReadModelStore {
  /** Synchronous, so a caller can serialise it before any write lands. */
  exportActive(): MemoryKeyspaceState;
  importActive(state: MemoryKeyspaceState): void;
}

export function createMemoryReadModels(): MemoryReadModelStore {
  const keyspaces = new Map<string, MemoryKeyspace>();
  let activeId = INITIAL_KEYSPACE;
  const keyspace = (id: string) => {
    let ks = keyspaces.get(id);
    if (!ks) keyspaces.set(id, (ks = new MemoryKeyspace(id)));
    return ks;
  };
  return {
    kind: 'memory',
    activeId: async () => activeId,
    active: async () => keyspace(activeId),
    keyspace,
    activate: async (id) => {
      keyspace(id);
      activeId = id;
    },
    drop: async (id) => {
      if (id === activeId) throw new Error(`Keyspace ${id} is active; activate another one first`);
      keyspaces.delete(id);
    },
    outdated: async () => false,
    list: async () => {
      const ids: string[] = [];
      for (const [id, ks] of keyspaces) if ((await ks.checkpoint()) !== null) ids.push(id);
      return ids.sort();
    },
    close: async () => {
      keyspaces.clear();
    },
    exportActive: () => keyspace(activeId).exportState(),
    importActive: (state) => keyspace(activeId).importState(state),
  };
}
