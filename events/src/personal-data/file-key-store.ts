/**
 * Member keys in files under DATA_DIR (standalone), not a PGlite table: PostgreSQL recycles its
 * WAL segments without zeroing them, so a destroyed key could stay readable there. 256 shards
 * (`<2 hex of sha256(member id)>.keys`), one JSON line per member; a new key is fsynced before the
 * event it encrypts, and a destroy rewrites its shard to a new file renamed over the old one, so
 * no file holds the key any more. Shards are read on first use and kept in memory (one process
 * holds DATA_DIR). Details: docs/architecture.md, "Personal data".
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { KEY_BYTES, newKey } from './cipher';
import type { KeysForOptions, KeyStore } from './key-store';

/** A member's line: `k` the key in base64, or `x: 1` for a destroyed key. */
interface KeyLine {
  m: string;
  k?: string;
  x?: 1;
}

type Shard = Map<string, Buffer | null>;

export class FileKeyStore implements KeyStore {
  private readonly shards = new Map<string, Shard>();
  /** One change at a time per shard (an append and a rewrite must not interleave). */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  async keysFor(memberIds: readonly string[], options: KeysForOptions = {}): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    const toCreate = new Map<string, string[]>();
    for (const id of memberIds) {
      const name = shardOf(id);
      const key = this.shard(name).get(id);
      if (key) found.set(id, key);
      else if (key === undefined && options.create) {
        const list = toCreate.get(name) ?? [];
        if (!list.includes(id)) list.push(id);
        toCreate.set(name, list);
      }
    }
    await Promise.all([...toCreate].map(([name, ids]) => this.locked(name, () => this.create(name, ids, found))));
    return found;
  }

  async destroy(memberId: string): Promise<void> {
    const name = shardOf(memberId);
    await this.locked(name, () => {
      const shard = this.shard(name);
      if (shard.has(memberId) && shard.get(memberId) === null) return;
      shard.set(memberId, null);
      this.rewrite(name, shard);
    });
  }

  /** Every member's key, null for a destroyed one, shard by shard (moving the keys to another store). */
  *entries(): Generator<[memberId: string, key: Buffer | null]> {
    for (let i = 0; i < 256; i++) yield* this.shard(i.toString(16).padStart(2, '0'));
  }

  async close(): Promise<void> {
    await Promise.all([...this.locks.values()].map((lock) => lock.catch(() => undefined)));
    this.shards.clear();
  }

  private async create(name: string, ids: string[], found: Map<string, Buffer>): Promise<void> {
    const shard = this.shard(name);
    const lines: string[] = [];
    const created = new Map<string, Buffer>();
    for (const id of ids) {
      const existing = shard.get(id);
      if (existing) found.set(id, existing);
      if (existing !== undefined) continue; // created meanwhile, or destroyed: stays destroyed
      const key = newKey();
      lines.push(JSON.stringify({ m: id, k: key.toString('base64') } satisfies KeyLine) + '\n');
      created.set(id, key);
    }
    if (lines.length === 0) return;
    const file = this.file(name);
    const isNew = !existsSync(file);
    // Written and fsynced off the event loop (a registration waits for its key, others go on).
    // The keys join the shard only once durable: no other caller may encrypt with one before.
    const handle = await open(file, 'a');
    try {
      await handle.write(lines.join(''));
      await handle.sync();
    } catch (error) {
      // Not durable: the append that asked fails; the shard is read again (and a torn line cut) on next use.
      this.shards.delete(name);
      throw error;
    } finally {
      await handle.close();
    }
    // A new file's name must be durable too (an existing one's is).
    if (isNew) await this.syncDirAsync();
    for (const [id, key] of created) {
      shard.set(id, key);
      found.set(id, key);
    }
  }

  private shard(name: string): Shard {
    let shard = this.shards.get(name);
    if (shard) return shard;
    shard = new Map();
    let text = '';
    try {
      text = readFileSync(this.file(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const lines = text.split('\n');
    // A crash can leave the last line torn; its key was never used (the fsync comes before the event).
    const torn = lines.pop() !== '';
    for (const line of lines) {
      const parsed = JSON.parse(line) as KeyLine;
      if (parsed.x) shard.set(parsed.m, null);
      else {
        const key = Buffer.from(parsed.k ?? '', 'base64');
        if (key.length !== KEY_BYTES) throw new Error(`Key file ${name}.keys holds a malformed key`);
        shard.set(parsed.m, key);
      }
    }
    this.shards.set(name, shard);
    if (torn) this.rewrite(name, shard);
    return shard;
  }

  private rewrite(name: string, shard: Shard): void {
    const text = [...shard]
      .map(([memberId, key]) => JSON.stringify(key ? ({ m: memberId, k: key.toString('base64') } satisfies KeyLine) : ({ m: memberId, x: 1 } satisfies KeyLine)) + '\n')
      .join('');
    const file = this.file(name);
    const temp = `${file}.${process.pid}.tmp`;
    const fd = openSync(temp, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    this.syncDir();
  }

  private async syncDirAsync(): Promise<void> {
    const handle = await open(this.dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  private syncDir(): void {
    const fd = openSync(this.dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private file(name: string): string {
    return join(this.dir, `${name}.keys`);
  }

  private async locked<T>(name: string, work: () => T): Promise<T> {
    const before = this.locks.get(name) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(work);
    this.locks.set(name, run);
    try {
      return await run;
    } finally {
      if (this.locks.get(name) === run) this.locks.delete(name);
    }
  }
}

function shardOf(memberId: string): string {
  return createHash('sha256').update(memberId).digest('hex').slice(0, 2);
}
