import type { Redis } from 'ioredis';
import { type SessionRecord, type SessionStore } from './session-store';

/** Distributed sessions: one Redis key per session, expiring with it, shared by every process. */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'pass:sessions:',
    private readonly ownsConnection = false,
  ) {}

  async create(record: SessionRecord): Promise<void> {
    const ttlMs = Math.max(1, Date.parse(record.expiresAt) - Date.now());
    await this.redis.set(this.prefix + record.id, JSON.stringify(record), 'PX', ttlMs);
  }

  async get(id: string): Promise<SessionRecord | null> {
    const raw = await this.redis.get(this.prefix + id);
    if (!raw) return null;
    return JSON.parse(raw) as SessionRecord;
  }

  async revoke(id: string): Promise<void> {
    await this.redis.del(this.prefix + id);
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.redis.quit();
  }
}
