import type { SessionRecord } from './session-store';

export interface SessionRecordCacheOptions {
  /** Records kept; the oldest cached goes first when full. */
  maxEntries?: number;
  /** A record is read again after this long even if no revocation was heard (a bound on any missed one). */
  maxAgeMs?: number;
  now?: () => number;
}

interface Entry {
  record: SessionRecord;
  cachedAt: number;
}

/**
 * The session records this process has read, so a member's next request verifies its cookie
 * without a round trip to the store. It is only as good as the revocations it hears: the owner
 * calls `forget` for every revoked id and `forgetAll` whenever it may have missed one (its
 * subscription dropped), and stops using the cache (`enabled = false`) until it hears them again.
 *
 * A read that was in flight when its id was forgotten is answered but not kept: the revocation
 * may have been decided after the store answered it.
 */
export class SessionRecordCache {
  private readonly entries = new Map<string, Entry>();
  /** Reads in flight by id; `forget` removes the mark, so their answer is not kept. */
  private readonly reading = new Map<string, symbol>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private on = false;
  hits = 0;
  misses = 0;

  constructor(options: SessionRecordCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.on;
  }

  /** Off: everything cached is dropped and every read goes to the store until it is turned on again. */
  set enabled(value: boolean) {
    if (!value) this.forgetAll();
    this.on = value;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The record from memory when held, else from `load`, kept if nothing revoked it meanwhile. */
  async read(id: string, load: (id: string) => Promise<SessionRecord | null>): Promise<SessionRecord | null> {
    if (!this.on) return load(id);
    const entry = this.entries.get(id);
    if (entry && this.now() - entry.cachedAt < this.maxAgeMs) {
      this.hits++;
      return entry.record;
    }
    this.misses++;
    const mark = Symbol(id);
    this.reading.set(id, mark);
    const startedAt = this.now();
    try {
      const record = await load(id);
      // Unknown ids are not kept: a forged or revoked id is rare, and the store says no quickly.
      if (record && this.on && this.reading.get(id) === mark) this.keep(id, record, startedAt);
      return record;
    } finally {
      if (this.reading.get(id) === mark) this.reading.delete(id);
    }
  }

  forget(id: string): void {
    this.entries.delete(id);
    this.reading.delete(id);
  }

  forgetAll(): void {
    this.entries.clear();
    this.reading.clear();
  }

  private keep(id: string, record: SessionRecord, cachedAt: number): void {
    this.entries.delete(id);
    this.entries.set(id, { record, cachedAt });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
