import { assertNever, type ChatHistory, type ChatMessageView, type GlobalPostView, type ProgressDay } from '@pass/events';
import { INITIAL_KEYSPACE, type Keyspace, type ReadModelStore } from './port';
import { MemberIds } from './member-ids';
import { MemberScores } from './member-scores';
import { mapParts, PART_ENTRIES, type MemoryStateHead, type MemoryStatePart } from './memory-state';
import { packRow, unpackRow, type PackedRow } from './packed-row';
import { searchPlan, UNPAIRED_SET, type SearchPlan } from './search';
import { TextIndex } from './text-index';
import { entryBefore, SortedList, type Chunk, type Entry } from './sorted-list';

/** Rows per page of `storedRows()`. */
const ROWS_PAGE = 5_000;
/** Multi-word search results are kept this long, as in the Redis adapter. */
const INTERSECTION_TTL_MS = 10_000;

/** The rows a search matches: an index set read as it is, or an intersection kept a while. */
type Matches = SortedList | Entry[];

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
  const firstNonMember = matches.findIndex((entry) => entry.score >= 0);
  return { size: membersOnly && firstNonMember >= 0 ? firstNonMember : matches.length, slice: (start, stop) => matches.slice(start, stop) };
}

/**
 * Ranks [start, stop) of the union of two matches holding different rows, as the Redis adapter
 * pages it: bisection for how many of the first `start` rows are a's, then one range of each.
 */
function mergedPage(ids: MemberIds, a: Scope, b: Scope, start: number, stop: number): { total: number; entries: Entry[] } {
  const before = (x: Entry, y: Entry) => entryBefore(ids, x.score, x.member, y.score, y.member);
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
  emptyMain,
  type BatchSnapshot,
  type CountriesRecord,
  type IndexState,
  type MainRecord,
  type ProgressTail,
  type ReadModelDump,
  type ReadModelWrite,
  type UserPage,
  type UserPageQuery,
  type UserRow,
  type WriteBatch,
} from './types';

/**
 * Read models in process memory (standalone mode): rebuilt from the event store at start, or
 * restored from a snapshot and caught up from its checkpoint.
 * Writes of a batch are applied synchronously, so no reader ever sees half a batch.
 */
class MemoryKeyspace implements Keyspace {
  private cp: string | null = null;
  private mainRecord: MainRecord = emptyMain();
  /** Rows by member number (each kept once, packed), and the member number of each user id and e-mail. */
  private rows = new Map<number, PackedRow>();
  private keyOf = new Map<string, number>();
  private emails = new Map<string, number>();
  private ids = new MemberIds();
  private where = new MemberScores();
  private sets = new Map<string, SortedList>();
  private countryCounts = new Map<string, number>();
  private chatLog: ChatMessageView[] = [];
  private postList: GlobalPostView[] = [];
  /** The progress read model's days, oldest first. */
  private progressDays: ProgressDay[] = [];
  private intersections = new Map<string, { at: number; entries: Entry[] }>();
  private index: MemoryStateHead['index'] = null;
  /** What searches find rows by (any part of a token): kept from the searchText and `users` writes. */
  private text = new TextIndex();

  readonly inProcess = true;

  constructor(readonly id: string) {}

  /** The state as plain data in parts, shared with the keyspace: serialise them before the next write. */
  exportState(partEntries = PART_ENTRIES): { checkpoint: string | null; parts: MemoryStatePart[] } {
    const head: MemoryStateHead = {
      part: 'head',
      checkpoint: this.cp,
      main: this.mainRecord,
      memberNames: this.ids.table(),
      countries: [...this.countryCounts],
      chat: this.chatLog,
      posts: this.postList,
      progress: this.progressDays,
      index: this.index,
    };
    const parts: MemoryStatePart[] = [head];
    mapParts(this.rows, partEntries, (members, packed) => ({ part: 'rows', members, packed }), parts);
    mapParts(this.keyOf, partEntries, (keys, members) => ({ part: 'userIds', keys, members }), parts);
    mapParts(this.emails, partEntries, (keys, members) => ({ part: 'emails', keys, members }), parts);
    let sets: Array<[string, readonly Chunk[]]> = [];
    let entries = 0;
    for (const [name, list] of this.sets) {
      sets.push([name, list.toChunks()]);
      entries += list.size;
      if (entries >= partEntries) {
        parts.push({ part: 'sets', sets });
        sets = [];
        entries = 0;
      }
    }
    if (sets.length > 0) parts.push({ part: 'sets', sets });
    parts.push(...this.text.exportParts(partEntries));
    return { checkpoint: this.cp, parts };
  }

  /**
   * Replaces everything with the state in `parts` (taken, not copied), read one at a time. When
   * reading them fails, nothing is replaced. Answers the number of users restored.
   */
  importState(parts: Iterable<MemoryStatePart>): number {
    let head: MemoryStateHead | undefined;
    let ids: MemberIds | undefined;
    const rows = new Map<number, PackedRow>();
    const keyOf = new Map<string, number>();
    const emails = new Map<string, number>();
    const sets = new Map<string, SortedList>();
    const where = new MemberScores();
    const text = new TextIndex();
    for (const part of parts) {
      if (part.part === 'head') {
        head = part;
        ids = new MemberIds(part.memberNames);
        continue;
      }
      if (!ids) throw new Error('the state does not begin with its head');
      switch (part.part) {
        case 'rows':
          for (let i = 0; i < part.members.length; i++) rows.set(part.members[i]!, part.packed[i]!);
          break;
        case 'userIds':
        case 'emails': {
          const map = part.part === 'userIds' ? keyOf : emails;
          for (let i = 0; i < part.keys.length; i++) map.set(part.keys[i]!, part.members[i]!);
          break;
        }
        case 'sets':
          for (const [name, chunks] of part.sets) sets.set(name, SortedList.fromChunks([...chunks], ids, where));
          break;
        case 'textTokens':
        case 'textRows':
          text.restore(part);
          break;
        default:
          assertNever(part);
      }
    }
    if (!head || !ids) throw new Error('the state has no head');
    this.rows = rows;
    this.keyOf = keyOf;
    this.emails = emails;
    this.ids = ids;
    this.where = where;
    this.sets = sets;
    this.cp = head.checkpoint;
    this.mainRecord = head.main;
    this.countryCounts = new Map(head.countries);
    this.chatLog = head.chat;
    this.postList = head.posts;
    this.progressDays = head.progress;
    this.index = head.index;
    this.intersections.clear();
    this.text = text;
    return rows.size;
  }

  async checkpoint(): Promise<string | null> {
    return this.cp;
  }

  async snapshot(userIds: Iterable<string>): Promise<BatchSnapshot> {
    const users = new Map<string, UserRow>();
    for (const id of userIds) {
      const row = this.row(this.keyOf.get(id));
      if (row) users.set(id, row);
    }
    const lastDay = this.progressDays.at(-1);
    return { checkpoint: this.cp, main: { ...this.mainRecord }, users, posts: [...this.postList], progressDay: lastDay ? { ...lastDay } : null };
  }

  async apply(batch: WriteBatch): Promise<'applied' | 'stale'> {
    if (this.cp !== batch.expectedCheckpoint) return 'stale';
    for (const write of batch.writes) this.write(write);
    this.cp = batch.checkpoint;
    return 'applied';
  }

  async indexState(): Promise<IndexState> {
    // Memory read models are never outdated (see ReadModelStore.outdated).
    return this.index ?? (this.cp === null ? 'deferred' : 'complete');
  }

  async *storedRows(): AsyncIterable<UserRow[]> {
    let page: UserRow[] = [];
    for (const member of this.rows.keys()) {
      page.push(this.row(member)!);
      if (page.length === ROWS_PAGE) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  async dropIndex(): Promise<void> {
    for (const [name, set] of [...this.sets]) {
      if (!name.startsWith('ix:')) continue;
      set.scan((member, score) => this.where.removed(member, score));
      this.sets.delete(name);
    }
    this.intersections.clear();
  }

  /** The row of a member number, unpacked (a fresh object: callers may change it). */
  private row(member: number | undefined): UserRow | undefined {
    const packed = member === undefined ? undefined : this.rows.get(member);
    return packed === undefined ? undefined : unpackRow(this.ids.member(member!), packed);
  }

  private set(name: string): SortedList {
    let set = this.sets.get(name);
    if (!set) this.sets.set(name, (set = new SortedList(this.ids, this.where)));
    return set;
  }

  /** The sorted sets' writes; `users`' scores also go to the text index. */
  private addScore(set: string, member: number, score: number): void {
    this.set(set).add(member, score);
    if (set === 'users' && member >= 0) this.text.setScore(member, score);
  }

  private addScores(set: string, entries: ReadonlyArray<[member: string, score: number]>): void {
    const members = entries.map((entry) => this.ids.id(entry[0]));
    this.set(set).addMany(
      members,
      entries.map((entry) => entry[1]),
    );
    if (set === 'users') members.forEach((member, i) => member >= 0 && this.text.setScore(member, entries[i]![1]));
  }

  private removeScore(name: string, key: string): void {
    const set = this.sets.get(name);
    const member = this.ids.find(key);
    if (set && member !== undefined && set.remove(member) && set.size === 0) this.sets.delete(name);
    if (name === 'users' && member !== undefined && member >= 0) this.text.setScore(member, null);
  }

  private write(write: ReadModelWrite): void {
    switch (write.op) {
      case 'main':
        this.mainRecord = { ...write.main };
        return;
      case 'user': {
        const member = this.ids.id(write.row.key);
        this.rows.set(member, packRow(write.row));
        this.keyOf.set(write.row.userId, member);
        return;
      }
      case 'zadd':
        this.addScore(write.set, this.ids.id(write.member), write.score);
        return;
      case 'searchText': {
        const member = this.ids.id(write.key);
        if (member >= 0) this.text.setText(member, write.text);
        return;
      }
      case 'zaddMany':
        this.addScores(write.set, write.entries);
        return;
      case 'indexState':
        this.index = write.state;
        return;
      case 'email':
        this.emails.set(write.email, this.ids.id(write.member));
        return;
      case 'zrem':
        this.removeScore(write.set, write.member);
        return;
      case 'country': {
        const count = (this.countryCounts.get(write.country) ?? 0) + write.delta;
        if (count > 0) this.countryCounts.set(write.country, count);
        else this.countryCounts.delete(write.country);
        return;
      }
      case 'chatPush':
        this.chatLog.push(write.message);
        if (this.chatLog.length > CHAT_HISTORY_LIMIT) this.chatLog.splice(0, this.chatLog.length - CHAT_HISTORY_LIMIT);
        return;
      case 'chatClear':
        this.chatLog = [];
        return;
      case 'posts':
        this.postList = [...write.posts];
        return;
      case 'userRemove': {
        const member = this.ids.find(write.key);
        if (member === undefined) return;
        this.rows.delete(member);
        if (this.keyOf.get(write.userId) === member) this.keyOf.delete(write.userId);
        if (write.email && this.emails.get(write.email) === member) this.emails.delete(write.email);
        return;
      }
      case 'chatDropUser':
        this.chatLog = this.chatLog.filter((message) => message.userId !== write.userId);
        return;
      case 'progressDay': {
        // Almost always the last day or the one after it: looked for from the end.
        const day = { ...write.day };
        let i = this.progressDays.length - 1;
        while (i >= 0 && this.progressDays[i]!.date > day.date) i--;
        if (i >= 0 && this.progressDays[i]!.date === day.date) this.progressDays[i] = day;
        else this.progressDays.splice(i + 1, 0, day);
        return;
      }
      default:
        assertNever(write);
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
      const member = this.emails.get(query.email);
      const score = member === undefined ? undefined : all.score(member);
      if (member === undefined || score === undefined || (query.membersOnly && score >= 0) || query.offset > 0) {
        return { total: score !== undefined && !(query.membersOnly && score >= 0) ? 1 : 0, rows: [] };
      }
      return { total: 1, rows: [{ rank: all.rank(member)! + 1, row: this.row(member)! }] };
    }
    if (query.text) {
      const page = this.text.page({ ...query.text, membersOnly: query.membersOnly, offset: query.offset, limit: query.limit });
      return { total: page.total, matchedBy: 'text', rows: page.ordinals.map((member) => ({ rank: all.rank(member)! + 1, row: this.row(member)! })) };
    }
    const plan = searchPlan(query.sets);
    const stop = query.offset + query.limit;
    let total: number;
    let entries: Entry[];
    if (query.registrySets) {
      ({ total, entries } = mergedPage(
        this.ids,
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
    // An unfiltered page is a range of `users` itself: its rows' ranks are their positions.
    const unfiltered = plan.sets.length === 0 && !query.registrySets;
    return {
      total,
      rows: entries.map((entry, i) => ({ rank: unfiltered ? query.offset + i + 1 : all.rank(entry.member)! + 1, row: this.row(entry.member)! })),
    };
  }

  /**
   * The rows in every set of the plan, as the Redis adapter finds them: one set or a pair set is
   * read as it is; more words walk the smallest pair set (or, without two words or when a row too
   * long to pair matches, the smallest set) and are kept a while. Undefined: no match.
   */
  private matching(plan: SearchPlan): Matches | undefined {
    const lists = plan.sets.map((name) => this.sets.get(name));
    if (lists.some((list) => !list)) return undefined;
    if (lists.length === 1) return lists[0];
    const cacheKey = plan.sets.join('\n');
    const now = Date.now();
    const cached = this.intersections.get(cacheKey);
    if (cached && now - cached.at < INTERSECTION_TTL_MS) return cached.entries;
    let walk = lists as SortedList[];
    const unpaired = this.sets.get(UNPAIRED_SET);
    const unpairedMatch = unpaired !== undefined && [...unpaired].some((entry) => walk.every((list) => list.score(entry.member) !== undefined));
    if (plan.pairs.length > 0 && !unpairedMatch) {
      let best = -1;
      for (let k = 0; k < plan.pairs.length; k++) {
        if (best < 0 || (this.sets.get(plan.pairs[k]!)?.size ?? 0) < (this.sets.get(plan.pairs[best]!)?.size ?? 0)) best = k;
      }
      const pair = this.sets.get(plan.pairs[best]!);
      if (!pair) return undefined;
      const [first, second] = plan.pairWords[best]!;
      walk = [pair, ...walk.filter((_, i) => i !== first && i !== second)];
      if (walk.length === 1) return pair;
    }
    const [smallest, ...rest] = [...walk].sort((x, y) => x.size - y.size);
    const entries: Entry[] = [];
    smallest!.scan((member, score) => {
      for (const list of rest) if (list.score(member) === undefined) return;
      entries.push({ member, score });
    });
    for (const [key, kept] of this.intersections) if (now - kept.at >= INTERSECTION_TTL_MS) this.intersections.delete(key);
    this.intersections.set(cacheKey, { at: now, entries });
    return entries;
  }

  async prepareSearch(): Promise<boolean> {
    return true;
  }

  async userById(userId: string): Promise<UserRow | null> {
    return this.row(this.keyOf.get(userId)) ?? null;
  }

  async chat(limit: number): Promise<ChatHistory> {
    return { total: this.mainRecord.globalMessages, messages: this.chatLog.slice(-limit) };
  }

  async posts(): Promise<GlobalPostView[]> {
    return [...this.postList];
  }

  async progress(): Promise<ProgressDay[]> {
    return this.progressDays.map((day) => ({ ...day }));
  }

  async progressTail(): Promise<ProgressTail> {
    const last = this.progressDays.at(-1);
    return { last: last ? { ...last } : null, days: this.progressDays.length };
  }

  async dump(): Promise<ReadModelDump> {
    const sets: ReadModelDump['sets'] = {};
    for (const name of [...this.sets.keys()].sort()) {
      sets[name] = [...this.sets.get(name)!].map((entry) => [this.ids.member(entry.member), entry.score === 0 ? 0 : entry.score]);
    }
    return {
      checkpoint: this.cp,
      main: { ...this.mainRecord },
      rows: [...this.rows.keys()].map((member) => this.row(member)!).sort((a, b) => (a.key < b.key ? -1 : 1)),
      sets,
      emails: [...this.emails].map(([email, member]): [string, string] => [email, this.ids.member(member)]).sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      countries: [...this.countryCounts].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      chat: [...this.chatLog],
      posts: [...this.postList],
      progress: await this.progress(),
    };
  }
}

/** The memory adapter, which can also hand out and take back its active keyspace's state. */
export interface MemoryReadModelStore extends ReadModelStore {
  /** Synchronous, so a caller can serialise it before any write lands. `partEntries`: entries per part (tests). */
  exportActive(partEntries?: number): { checkpoint: string | null; parts: MemoryStatePart[] };
  /** Replaces the active keyspace's state with `parts`' (read one at a time; nothing replaced if reading fails). */
  importActive(parts: Iterable<MemoryStatePart>): number;
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
    exportActive: (partEntries) => keyspace(activeId).exportState(partEntries),
    importActive: (parts) => keyspace(activeId).importState(parts),
  };
}
