import type { RedisConnection } from '../redis-admin';
import { rankKeySeq } from '../search';
import { decodeSearchText } from '../search-text';
import { TextIndex } from '../text-index';
import { TEXT_LOG_ENTRIES, TEXT_MARKER } from './keys';

/**
 * A reader's copy of one Redis keyspace's text index (text-index.ts), so a search for any part of
 * a token is answered in this process (docs/architecture.md, "Search"): loaded from the rows'
 * search records (`text`) and `users`' scores, then kept by following the text log every batch
 * appends to (apply.lua). Until it has loaded, or for a keyspace projected by older code, it has
 * no index and searches read the word-start sets instead.
 */
export class TextMirror {
  private index: TextIndex | undefined;
  private loading: Promise<void> | undefined;
  private following: Promise<void> | undefined;
  /** The projection loaded (TEXT_MARKER's value), the last log entry applied, and the log's count of entries by then. */
  private marker: string | null = null;
  private lastId = '0-0';
  private added = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** The index, up to date with the log; undefined while it loads (the load starts on the first call). */
  async current(): Promise<TextIndex | undefined> {
    if (!this.index) {
      this.load();
      return undefined;
    }
    this.following ??= this.follow().finally(() => (this.following = undefined));
    await this.following;
    return this.index;
  }

  /** Loads the copy if it has none (waiting for it), then answers whether searches use it. */
  async ready(): Promise<boolean> {
    if (!this.index) await this.load();
    return (await this.current()) !== undefined;
  }

  /** Starts loading (again) unless a load is under way; resolves when it ends. */
  load(): Promise<void> {
    this.loading ??= this.loadOnce()
      .catch((error: unknown) => this.onError(error))
      .finally(() => (this.loading = undefined));
    return this.loading;
  }

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }

  /** Which projection of the keyspace, its log's newest entry and how many entries it has taken in. */
  private async logHead(): Promise<{ marker: string | null; head: string; added: number }> {
    const [marker, head, added] = await this.redis.mget(this.key(TEXT_MARKER), this.key('text:head'), this.key('text:added'));
    return { marker: marker ?? null, head: head ?? '0-0', added: Number(added ?? 0) };
  }

  private async loadOnce(): Promise<void> {
    // Where the log stands before the records are read: what changes meanwhile is applied after.
    const { marker, head, added } = await this.logHead();
    if (marker === null) return;
    const index = new TextIndex();
    for await (const flat of this.redis.hscanStream(this.key('text'), { count: 5_000 }) as AsyncIterable<string[]>) {
      for (let i = 0; i < flat.length; i += 2) {
        const ordinal = rankKeySeq(flat[i]!);
        if (ordinal !== undefined) index.setText(ordinal, decodeSearchText(flat[i + 1]!));
      }
    }
    for await (const flat of this.redis.zscanStream(this.key('z:users'), { count: 5_000 }) as AsyncIterable<string[]>) {
      for (let i = 0; i < flat.length; i += 2) {
        const ordinal = rankKeySeq(flat[i]!);
        if (ordinal !== undefined) index.setScore(ordinal, Number(flat[i + 1]));
      }
    }
    this.index = index;
    this.marker = marker;
    this.lastId = head;
    this.added = added;
    await this.follow();
  }

  /**
   * Applies the log's entries after the last one applied. A log trimmed past it, or another
   * projection of the keyspace (dropped and projected again), means this copy cannot be brought
   * up to date: it is dropped and loaded again, and searches read the word-start sets meanwhile.
   */
  private async follow(): Promise<void> {
    const { marker, head, added } = await this.logHead();
    if (marker !== this.marker || added < this.added || added - this.added > TEXT_LOG_ENTRIES) {
      this.index = undefined;
      void this.load();
      return;
    }
    if (head === this.lastId) return;
    for (;;) {
      const entries = (await this.redis.xrange(this.key('text:log'), `(${this.lastId}`, '+', 'COUNT', 100)) as Array<[string, string[]]>;
      for (const [id, fields] of entries) {
        this.apply(fields);
        this.lastId = id;
      }
      if (entries.length < 100) break;
    }
    // Entries read past `head` are counted again next time: a reload comes early, never late.
    this.added = added;
  }

  private apply(fields: string[]): void {
    const index = this.index!;
    for (let i = 0; i < fields.length; i += 2) {
      const ordinal = rankKeySeq(fields[i]!.slice(1));
      if (ordinal === undefined) continue;
      const value = fields[i + 1]!;
      if (fields[i]![0] === 't') index.setText(ordinal, value === '' ? null : decodeSearchText(value));
      else index.setScore(ordinal, value === '' ? null : Number(value));
    }
  }
}
