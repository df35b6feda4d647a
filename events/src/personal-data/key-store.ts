/**
 * The KeyStore port: one AES key per member, kept beside the events. Destroying a member's key
 * is what erases their personal data (crypto-shredding). A destroyed key is remembered as such
 * (by member id only), so a late write for that member never gets a fresh key.
 * Adapters: `FileKeyStore` (standalone, under DATA_DIR), `PostgresKeyStore` (table
 * `member_keys` in the event store's schema), `MemoryKeyStore` (tests, pglite:memory).
 */
import { newKey } from './cipher';

export interface KeysForOptions {
  /** Write path: create a key for each member that never had one. Destroyed keys stay destroyed. */
  create?: boolean;
}

export interface KeyStore {
  /** The keys of these members that exist; a member missing from the map has none (never had one, or erased). */
  keysFor(memberIds: readonly string[], options?: KeysForOptions): Promise<Map<string, Buffer>>;
  /** Destroys the member's key for good. Idempotent. */
  destroy(memberId: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryKeyStore implements KeyStore {
  /** null: destroyed. */
  private readonly keys = new Map<string, Buffer | null>();

  async keysFor(memberIds: readonly string[], options: KeysForOptions = {}): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    for (const id of memberIds) {
      let key = this.keys.get(id);
      if (key === undefined && options.create) this.keys.set(id, (key = newKey()));
      if (key) found.set(id, key);
    }
    return found;
  }

  async destroy(memberId: string): Promise<void> {
    this.keys.set(memberId, null);
  }

  async close(): Promise<void> {}
}

/**
 * Keeps recently used keys in memory (least recently used out first), so a batch of events
 * decrypts without a round trip to the key store once its members are warm. Absent keys are not
 * cached: a member created by another process is found on the next look. Misses of look-ups made
 * in the same turn of the event loop go to the key store together, one look-up for all (commands
 * of many cold members at once: after a restart, each one's first command).
 */
export class CachedKeyStore implements KeyStore {
  private readonly cache = new Map<string, Buffer>();
  /** The look-up gathering this turn's misses, one for the write path (create) and one for reads. */
  private readonly gathering = new Map<boolean, { ids: Set<string>; loaded: Promise<Map<string, Buffer>> }>();
  /**
   * Per look-up in flight, the members dropped (forget, destroy) meanwhile: a key read before its
   * member's erasure and answered after it is neither kept nor handed out.
   */
  private readonly droppedWhileLooking = new Set<Set<string>>();

  constructor(
    private readonly inner: KeyStore,
    private readonly capacity = 100_000,
  ) {}

  async keysFor(memberIds: readonly string[], options: KeysForOptions = {}): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    const missing: string[] = [];
    for (const id of memberIds) {
      const key = this.cache.get(id);
      if (key) {
        // Re-insert: Map order is the recency order.
        this.cache.delete(id);
        this.cache.set(id, key);
        found.set(id, key);
      } else if (!found.has(id)) missing.push(id);
    }
    if (missing.length > 0) {
      const dropped = new Set<string>();
      this.droppedWhileLooking.add(dropped);
      try {
        const loaded = await this.lookUp(missing, options.create === true);
        for (const id of missing) {
          const key = loaded.get(id);
          if (!key || found.has(id) || dropped.has(id)) continue;
          found.set(id, key);
          this.remember(id, key);
        }
      } finally {
        this.droppedWhileLooking.delete(dropped);
      }
    }
    return found;
  }

  /** The keys of `ids`, looked up with the other misses of this turn that share `create`. */
  private lookUp(ids: readonly string[], create: boolean): Promise<Map<string, Buffer>> {
    let batch = this.gathering.get(create);
    if (!batch) {
      const gathered = new Set<string>();
      const loaded = new Promise<void>((turnOver) => setImmediate(turnOver)).then(() => {
        // Misses from now on gather for the next look-up.
        this.gathering.delete(create);
        return this.inner.keysFor([...gathered], create ? { create } : {});
      });
      batch = { ids: gathered, loaded };
      this.gathering.set(create, batch);
    }
    for (const id of ids) batch.ids.add(id);
    return batch.loaded;
  }

  /** Drops a member's key from this process's memory (another process erased them). */
  forget(memberId: string): void {
    this.drop(memberId);
  }

  async destroy(memberId: string): Promise<void> {
    this.drop(memberId);
    await this.inner.destroy(memberId);
    // Again: a look-up sent while the key was being destroyed may still have read it.
    this.drop(memberId);
  }

  close(): Promise<void> {
    this.cache.clear();
    return this.inner.close();
  }

  private drop(id: string): void {
    this.cache.delete(id);
    for (const dropped of this.droppedWhileLooking) dropped.add(id);
  }

  private remember(id: string, key: Buffer): void {
    this.cache.set(id, key);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }
}
