import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { listenToAnnouncements, type AnnouncementListener } from '@pass/events/redis';
import { SessionRecordCache, type SessionRecordCacheOptions } from './session-record-cache';
import { type SessionRecord, type SessionStore } from './session-store';

export interface LocalCacheOptions extends SessionRecordCacheOptions {
  logger: Logger;
}

/**
 * Distributed sessions: one Redis key per session, expiring with it, and one set of session ids
 * per member (`<prefix>of:user:<id>`), so signing a member out everywhere is one SMEMBERS and one
 * MULTI. `withLocalCache` also keeps the records it read (every request of a member checks their
 * session), exact through revocations: a logout deletes the key and announces the id in one MULTI,
 * and a process that may have missed an announcement forgets everything until it is subscribed
 * again (docs/architecture.md, "Command side"; CLIENT TRACKING would do, but ioredis drops its messages).
 */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';
  private cache: SessionRecordCache | undefined;
  private listener: AnnouncementListener | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'pass:sessions:',
    private readonly ownsConnection = false,
  ) {}

  /** Channel of the ids revoked, under the same prefix as the records. */
  get revocationChannel(): string {
    return `${this.prefix}revoked`;
  }

  static async withLocalCache(redis: Redis, prefix: string, options: LocalCacheOptions, ownsConnection = false): Promise<RedisSessionStore> {
    const store = new RedisSessionStore(redis, prefix, ownsConnection);
    await store.subscribe(options);
    return store;
  }

  /** Redis's id of the revocation subscriber's connection (CLIENT LIST / CLIENT KILL ID); changes on reconnect. */
  get revocationClientId(): number | undefined {
    return this.listener?.clientId;
  }

  /** Reads served from memory and from Redis (while the cache is on), for tests and operators. */
  get cacheStats(): { enabled: boolean; hits: number; misses: number; size: number } | undefined {
    const cache = this.cache;
    return cache && { enabled: cache.enabled, hits: cache.hits, misses: cache.misses, size: cache.size };
  }

  /** The set of one member's (or admin's) session ids; ids hold no ':', so it never names a session. */
  private subjectKey(kind: SessionRecord['kind'], subjectId: string): string {
    return `${this.prefix}of:${kind}:${subjectId}`;
  }

  async create(record: SessionRecord): Promise<void> {
    const ttlMs = Math.max(1, Date.parse(record.expiresAt) - Date.now());
    const index = this.subjectKey(record.kind, record.subjectId);
    // Every session lasts as long, so the newest one's expiry is the set's: it goes with the last session.
    await this.redis.multi().set(this.prefix + record.id, JSON.stringify(record), 'PX', ttlMs).sadd(index, record.id).pexpire(index, ttlMs).exec();
  }

  get(id: string): Promise<SessionRecord | null> {
    return this.cache ? this.cache.read(id, (key) => this.load(key)) : this.load(id);
  }

  async revoke(id: string): Promise<void> {
    this.cache?.forget(id);
    // One MULTI: no process can see the key gone without the announcement following it. The id
    // stays in its member's set until that set is next listed (a revoked id lists as nothing).
    await this.redis.multi().del(this.prefix + id).publish(this.revocationChannel, id).exec();
  }

  async listOf(kind: SessionRecord['kind'], subjectId: string): Promise<SessionRecord[]> {
    const index = this.subjectKey(kind, subjectId);
    const ids = await this.redis.smembers(index);
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.prefix + id));
    const gone = ids.filter((_, index) => !raws[index]);
    if (gone.length > 0) await this.redis.srem(index, ...gone);
    return raws.flatMap((raw) => (raw ? [JSON.parse(raw) as SessionRecord] : []));
  }

  async revokeAllOf(kind: SessionRecord['kind'], subjectId: string, except?: string): Promise<string[]> {
    const index = this.subjectKey(kind, subjectId);
    const ids = (await this.redis.smembers(index)).filter((id) => id !== except);
    if (ids.length === 0) return [];
    for (const id of ids) this.cache?.forget(id);
    // One MULTI: the records, their places in the set and every process's cached copy go together.
    const multi = this.redis.multi().del(...ids.map((id) => this.prefix + id)).srem(index, ...ids);
    for (const id of ids) multi.publish(this.revocationChannel, id);
    await multi.exec();
    return ids;
  }

  async touch(id: string, at: string): Promise<void> {
    const record = await this.load(id);
    if (!record) return;
    // XX and KEEPTTL: a session revoked meanwhile is not brought back, and it still expires when it did.
    await this.redis.set(this.prefix + id, JSON.stringify({ ...record, lastSeenAt: at }), 'KEEPTTL', 'XX');
  }

  async close(): Promise<void> {
    if (this.cache) this.cache.enabled = false;
    await this.listener?.close();
    if (this.ownsConnection) await this.redis.quit();
  }

  private async load(id: string): Promise<SessionRecord | null> {
    const raw = await this.redis.get(this.prefix + id);
    return raw ? (JSON.parse(raw) as SessionRecord) : null;
  }

  private async subscribe({ logger, ...cacheOptions }: LocalCacheOptions): Promise<void> {
    const cache = new SessionRecordCache(cacheOptions);
    this.cache = cache;
    this.listener = await listenToAnnouncements(this.redis, {
      channel: this.revocationChannel,
      connectionName: 'command-api:session-revocations',
      logger,
      onMessage: (id) => cache.forget(id),
      onHeard: () => (cache.enabled = true),
      onUnheard: () => (cache.enabled = false),
      says: {
        heard: 'session revocations heard: session records are cached in this process',
        unheard: 'session revocations unheard (Redis subscriber disconnected): every session is read from Redis until they are heard again',
      },
    });
  }
}
