import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isLive, MemorySessionStore, type SessionRecord } from './session-store';

type Line = { op: 'create'; record: SessionRecord } | { op: 'revoke'; id: string } | { op: 'touch'; id: string; at: string };

/**
 * Standalone sessions: an append-only JSON-lines log next to the embedded event store, loaded
 * into memory at start and compacted (expired and revoked sessions dropped) on every open and
 * whenever dead lines outnumber live sessions. The per-member index (signing a member out
 * everywhere) is the memory store's, rebuilt from the lines as they load. One process owns the
 * file; distributed mode uses the Redis adapter instead.
 */
export class FileSessionStore extends MemorySessionStore {
  override readonly kind = 'file';
  private writes: Promise<void> = Promise.resolve();
  private linesInFile = 0;

  private constructor(private readonly file: string) {
    super();
  }

  static async open(file: string): Promise<FileSessionStore> {
    const store = new FileSessionStore(file);
    await mkdir(dirname(file), { recursive: true });
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        continue; // a torn last line after a crash
      }
      if (line.op === 'create') store.remember(line.record);
      else if (line.op === 'touch') await store.touchInMemory(line.id, line.at);
      else store.forget(line.id);
    }
    await store.compact();
    return store;
  }

  /** Rewrites the file with the live sessions only (atomically: temp file, then rename). */
  private async compact(): Promise<void> {
    const now = Date.now();
    for (const [id, record] of this.sessions) if (!isLive(record, now)) this.forget(id);
    const lines = [...this.sessions.values()].map((record) => JSON.stringify({ op: 'create', record } satisfies Line) + '\n');
    await writeFile(`${this.file}.tmp`, lines.join(''), { mode: 0o600 });
    await rename(`${this.file}.tmp`, this.file);
    this.linesInFile = lines.length;
  }

  override async create(record: SessionRecord): Promise<void> {
    await super.create(record);
    await this.write({ op: 'create', record });
  }

  override async revoke(id: string): Promise<void> {
    await super.revoke(id);
    await this.write({ op: 'revoke', id });
  }

  override async touch(id: string, at: string): Promise<void> {
    if (!this.sessions.has(id)) return;
    await super.touch(id, at);
    await this.write({ op: 'touch', id, at });
  }

  private touchInMemory(id: string, at: string): Promise<void> {
    return super.touch(id, at);
  }

  override async close(): Promise<void> {
    await this.writes;
  }

  private write(line: Line): Promise<void> {
    // Appends are chained so lines never interleave; the caller waits for its own line.
    const next = this.writes.then(async () => {
      await appendFile(this.file, JSON.stringify(line) + '\n', { mode: 0o600 });
      this.linesInFile++;
      if (this.linesInFile > 10_000 && this.linesInFile > 2 * this.sessions.size) await this.compact();
    });
    this.writes = next.catch(() => undefined);
    return next;
  }
}
