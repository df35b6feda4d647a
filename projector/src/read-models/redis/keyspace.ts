import type { ChatHistory, ChatMessageView, GlobalPostView, ProgressDay } from '@pass/events';
import type { Keyspace } from '../port';
import { scanKeys, unlinkKeys, type RedisConnection } from '../redis-admin';
import { emptyMain, type BatchSnapshot, type CountriesRecord, type IndexState, type MainRecord, type ProgressTail, type ReadModelDump, type UserPage, type UserPageQuery, type UserRow, type WriteBatch } from '../types';
import { applyBatch, readSnapshot } from './batches';
import { dumpKeyspace } from './dump';
import type { Fencing } from './fencing';
import { indexStateAt, keyspacePrefix, parseJson } from './keys';
import { loadLua, runLua } from './lua';
import type { TextMirrors } from './text-mirrors';
import { readTextPage, readUserPage } from './user-pages';

/**
 * The country count and the top of the countries set, read together as one command
 * (countries.lua): a MULTI/EXEC of the same two reads costs the reader several times the CPU of
 * a single reply.
 */
const COUNTRIES = loadLua(new URL('./countries.lua', import.meta.url));
const PROGRESS_TAIL = loadLua(new URL('./progress-tail.lua', import.meta.url));

/** One keyspace's read models in Redis, under keyspacePrefix(root, id). */
export class RedisKeyspace implements Keyspace {
  readonly prefix: string;
  readonly inProcess = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly root: string,
    readonly id: string,
    /** The writer's lease epoch, for a projector that leads by lease; absent: unfenced. */
    private readonly fencing?: Fencing,
    /** The readers' copies of the keyspaces' text indexes; absent: searches read the word-start sets. */
    private readonly mirrors?: TextMirrors,
  ) {
    this.prefix = keyspacePrefix(root, id);
  }

  async checkpoint(): Promise<string | null> {
    return await this.redis.get(`${this.prefix}checkpoint`);
  }

  snapshot(userIds: Iterable<string>): Promise<BatchSnapshot> {
    return readSnapshot(this.redis, this.prefix, userIds);
  }

  apply(batch: WriteBatch): Promise<'applied' | 'stale'> {
    return applyBatch(this.redis, this.root, this.id, batch, this.fencing);
  }

  async indexState(): Promise<IndexState> {
    return indexStateAt(this.redis, this.prefix);
  }

  async *storedRows(): AsyncIterable<UserRow[]> {
    for await (const flat of this.redis.hscanStream(`${this.prefix}rows`, { count: 2_000 }) as AsyncIterable<string[]>) {
      const rows: UserRow[] = [];
      for (let i = 1; i < flat.length; i += 2) rows.push(JSON.parse(flat[i]!) as UserRow);
      if (rows.length > 0) yield rows;
    }
  }

  async dropIndex(): Promise<void> {
    this.fencing?.token();
    for await (const keys of scanKeys(this.redis, `${this.prefix}z:ix:*`)) await unlinkKeys(this.redis, keys, true);
  }

  async main(): Promise<MainRecord> {
    return parseJson(await this.redis.get(`${this.prefix}main`), emptyMain());
  }

  async countries(limit: number): Promise<CountriesRecord> {
    const [distinct, flat] = (await runLua(this.redis, COUNTRIES, 1, [`${this.prefix}countries`, limit - 1])) as [number, string[]];
    const top: CountriesRecord['top'] = [];
    for (let i = 0; i < flat.length; i += 2) top.push({ country: flat[i]!, users: -Number(flat[i + 1]) });
    return { distinct, top };
  }

  async users(query: UserPageQuery): Promise<UserPage> {
    const { text } = query;
    if (text && query.email === undefined && this.mirrors) {
      const index = await this.mirrors.of(this.prefix).current();
      if (index) return readTextPage(this.redis, this.prefix, index, text, query);
    }
    return readUserPage(this.redis, this.prefix, query);
  }

  async prepareSearch(): Promise<boolean> {
    return this.mirrors ? this.mirrors.of(this.prefix).ready() : false;
  }

  async userById(userId: string): Promise<UserRow | null> {
    const key = await this.redis.hget(`${this.prefix}uid`, userId);
    if (!key) return null;
    return parseJson(await this.redis.hget(`${this.prefix}rows`, key), null as UserRow | null);
  }

  async chat(limit: number): Promise<ChatHistory> {
    const res = (await this.redis.multi().get(`${this.prefix}main`).lrange(`${this.prefix}chat`, -limit, -1).exec()) ?? [];
    for (const [err] of res) if (err) throw err;
    const main = parseJson(res[0]![1] as string | null, emptyMain());
    return { total: main.globalMessages, messages: (res[1]![1] as string[]).map((json) => JSON.parse(json) as ChatMessageView) };
  }

  async posts(): Promise<GlobalPostView[]> {
    return parseJson(await this.redis.get(`${this.prefix}posts`), [] as GlobalPostView[]);
  }

  async progress(): Promise<ProgressDay[]> {
    // At most a few hundred days (one field each); the body built from them is shared (query-api's versionedBody).
    const days = Object.values(await this.redis.hgetall(`${this.prefix}progress`)).map((json) => JSON.parse(json) as ProgressDay);
    return days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }

  async progressTail(): Promise<ProgressTail> {
    const [last, days] = (await runLua(this.redis, PROGRESS_TAIL, 2, [`${this.prefix}progress:last`, `${this.prefix}progress`])) as [string | null, number];
    return { last: parseJson(last, null as ProgressDay | null), days };
  }

  dump(): Promise<ReadModelDump> {
    return dumpKeyspace(this.redis, this);
  }
}
