/**
 * The backup archive: one gzip stream of frames, each a 4-byte length, a JSON header and a body
 * of `header.size` bytes. The first frame names the format; event frames hold events as JSON
 * lines in the store's global order; file frames hold one file of DATA_DIR each; the last frame
 * is the manifest (counts, sizes, the source's head position and the SHA-256 of every byte
 * before it). gzip's own trailer (CRC-32 and length) catches a truncated or damaged file too.
 * Our own format rather than tar: no new dependency, and the manifest can vouch for the events.
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { createGunzip, createGzip, type Gzip } from 'node:zlib';
import { z } from 'zod';

export const FORMAT = 'pass-backup';
export const FORMAT_VERSION = 1;

export const frameHeaderSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('format'), format: z.literal(FORMAT), version: z.literal(FORMAT_VERSION), size: z.literal(0) }),
  z.object({ kind: z.literal('events'), count: z.number().int().positive(), size: z.number().int().nonnegative() }),
  z.object({
    kind: z.literal('file'),
    /** Relative to its root, `/`-separated, never `..`. */
    path: z.string().min(1).refine((path) => !path.startsWith('/') && !path.split('/').some((part) => part === '..' || part === '' || part === '.'), 'unsafe path'),
    /** `data`: DATA_DIR; `uploads`: UPLOADS_DIR when it lies outside DATA_DIR. */
    root: z.enum(['data', 'uploads']),
    size: z.number().int().nonnegative(),
  }),
  z.object({ kind: z.literal('manifest'), size: z.number().int().positive() }),
]);
export type FrameHeader = z.infer<typeof frameHeaderSchema>;

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(FORMAT_VERSION),
  createdAt: z.string(),
  /** `live`: read through the running server; `offline`: from the store directly. */
  source: z.enum(['live', 'offline']),
  eventCount: z.number().int().nonnegative(),
  /** The source store's position of the last event included (`commit/prepare`), or null when empty. */
  headPosition: z.string().nullable(),
  eventBytes: z.number().int().nonnegative(),
  fileCount: z.number().int().nonnegative(),
  fileBytes: z.number().int().nonnegative(),
  /** SHA-256 (hex) of every uncompressed byte before the manifest frame. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** A refusal the CLI prints as its one line. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

function frameBytes(header: object): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json]);
}

/** Writes frames into a gzip file, hashing what it writes; `finish` adds the manifest. */
export class ArchiveWriter {
  private readonly gzip: Gzip = createGzip({ level: 6 });
  private readonly out: WriteStream;
  private readonly done: Promise<unknown>;
  private readonly hash: Hash = createHash('sha256');
  /** Compressed bytes written so far (progress). */
  compressedBytes = 0;

  /** Rejects when the file cannot be written (no such folder, disk full), so no write waits forever. */
  private readonly failed: Promise<never>;

  constructor(file: string) {
    this.out = createWriteStream(file, { mode: 0o600 });
    this.gzip.on('data', (chunk: Buffer) => (this.compressedBytes += chunk.length));
    this.gzip.pipe(this.out);
    this.done = once(this.out, 'close');
    this.failed = new Promise((_, fail) => this.out.once('error', (error) => fail(new ArchiveError(`cannot write ${file} (${error.message})`))));
    this.failed.catch(() => undefined);
  }

  private async write(bytes: Buffer): Promise<void> {
    this.hash.update(bytes);
    if (!this.gzip.write(bytes)) await Promise.race([once(this.gzip, 'drain'), this.failed]);
  }

  async frame(header: FrameHeader, body?: Buffer): Promise<void> {
    await this.write(frameBytes(header));
    if (body) await this.write(body);
  }

  /** A file frame whose body comes from a stream of exactly `header.size` bytes. */
  async streamFrame(header: FrameHeader, body: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<number> {
    await this.write(frameBytes(header));
    let written = 0;
    for await (const chunk of body) {
      const part = chunk.subarray(0, header.size - written);
      written += part.length;
      await this.write(part);
    }
    if (written !== header.size) throw new Error(`a file changed size while being read (${written} of ${header.size} bytes)`);
    return written;
  }

  async finish(manifest: Omit<Manifest, 'sha256' | 'format' | 'version'>): Promise<Manifest> {
    const full: Manifest = { format: FORMAT, version: FORMAT_VERSION, ...manifest, sha256: this.hash.digest('hex') };
    const body = Buffer.from(JSON.stringify(full));
    const header = frameBytes({ kind: 'manifest', size: body.length });
    this.gzip.end(Buffer.concat([header, body]));
    await Promise.race([this.done, this.failed]);
    return full;
  }

  async abort(): Promise<void> {
    this.gzip.destroy();
    this.out.destroy();
    await this.done.catch(() => undefined);
  }
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  /** SHA-256 of the bytes consumed so far (what the manifest's checksum covers). */
  readonly hash: Hash = createHash('sha256');
  private buffered: Buffer[] = [];
  private length = 0;
  private readonly chunks: AsyncIterator<Buffer>;

  constructor(source: AsyncIterable<Buffer>) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  /** False once the stream has ended with nothing buffered. */
  async more(): Promise<boolean> {
    if (this.length > 0) return true;
    const next = await this.chunks.next();
    if (next.done) return false;
    this.push(next.value);
    return true;
  }

  private push(chunk: Buffer) {
    this.buffered.push(chunk);
    this.length += chunk.length;
  }

  async read(byteCount: number): Promise<Buffer> {
    while (this.length < byteCount) {
      const next = await this.chunks.next();
      if (next.done) throw new ArchiveError('the archive ends in the middle of a frame (truncated)');
      this.push(next.value);
    }
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
    this.buffered = all.length > byteCount ? [all.subarray(byteCount)] : [];
    this.length = all.length - byteCount;
    const out = all.subarray(0, byteCount);
    this.hash.update(out);
    return out;
  }

  /** Up to `byteCount` bytes in pieces of at most 1 MiB, so a large file is never held whole. */
  async *pieces(byteCount: number): AsyncGenerator<Buffer> {
    let left = byteCount;
    while (left > 0) {
      const part = await this.read(Math.min(left, 1 << 20));
      left -= part.length;
      yield part;
    }
  }
}

export interface ArchiveVisitor {
  events(lines: string[], header: Extract<FrameHeader, { kind: 'events' }>): Promise<void>;
  file(header: Extract<FrameHeader, { kind: 'file' }>, body: AsyncIterable<Buffer>): Promise<void>;
}

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ArchiveError(`the archive's ${what} is not readable (damaged)`);
  }
}

async function readHeader(reader: ByteReader): Promise<FrameHeader> {
  const length = (await reader.read(4)).readUInt32BE(0);
  if (length > 1 << 20) throw new ArchiveError('the archive holds an impossible frame (damaged)');
  const parsed = frameHeaderSchema.safeParse(parseJson(await reader.read(length), 'frame header'));
  if (!parsed.success) throw new ArchiveError(`the archive holds an unknown frame (damaged or not a ${FORMAT} archive)`);
  return parsed.data;
}

/**
 * Reads an archive front to back, handing events and files to `visitor` as they come, and
 * answers the manifest once every byte before it matches its checksum and counts. Throws an
 * ArchiveError for anything damaged, truncated or foreign; the visitor's work must then be
 * thrown away by the caller (restore writes into a staging folder).
 */
export async function readArchive(input: Readable, visitor: ArchiveVisitor): Promise<Manifest> {
  const gunzip = createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  const chunks = (async function* () {
    try {
      for await (const chunk of input.pipe(gunzip)) yield chunk as Buffer;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR' || /unexpected end/i.test((error as Error).message)) throw new ArchiveError('the archive is truncated (its compressed stream ends early)');
      if (code?.startsWith('Z_')) throw new ArchiveError(`the archive is damaged (${(error as Error).message})`);
      throw error;
    }
  })();
  const reader = new ByteReader(chunks);
  return readFrames(reader, visitor, () => reader.hash.copy().digest('hex'));
}

async function readFrames(reader: ByteReader, visitor: ArchiveVisitor, digestSoFar: () => string): Promise<Manifest> {
  const first = await readHeader(reader).catch((error: unknown) => {
    throw error instanceof ArchiveError ? new ArchiveError(`not a ${FORMAT} archive (${error.message})`) : error;
  });
  if (first.kind !== 'format') throw new ArchiveError(`not a ${FORMAT} archive`);
  const seen = { events: 0, eventBytes: 0, files: 0, fileBytes: 0 };
  for (;;) {
    if (!(await reader.more())) throw new ArchiveError('the archive is truncated (no manifest at its end)');
    // The digest of everything before this frame: the manifest's own checksum covers exactly that.
    const before = digestSoFar();
    const header = await readHeader(reader);
    if (header.kind === 'events') {
      const body = await reader.read(header.size);
      const lines = body.toString('utf8').split('\n').filter(Boolean);
      if (lines.length !== header.count) throw new ArchiveError('an events frame holds the wrong number of events (damaged)');
      seen.events += lines.length;
      seen.eventBytes += header.size;
      await visitor.events(lines, header);
    } else if (header.kind === 'file') {
      seen.files += 1;
      seen.fileBytes += header.size;
      await visitor.file(header, reader.pieces(header.size));
    } else if (header.kind === 'manifest') {
      return checkManifest(parseJson(await reader.read(header.size), 'manifest'), before, seen, reader);
    } else {
      throw new ArchiveError('the archive names its format twice (damaged)');
    }
  }
}

async function checkManifest(raw: unknown, digest: string, seen: { events: number; eventBytes: number; files: number; fileBytes: number }, reader: ByteReader): Promise<Manifest> {
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) throw new ArchiveError('the archive has an unreadable manifest (damaged)');
  const manifest = parsed.data;
  if (manifest.sha256 !== digest) throw new ArchiveError('the archive does not match its checksum (damaged)');
  if (manifest.eventCount !== seen.events || manifest.eventBytes !== seen.eventBytes || manifest.fileCount !== seen.files || manifest.fileBytes !== seen.fileBytes) {
    throw new ArchiveError('the archive does not hold what its manifest lists (damaged)');
  }
  // Reading on lets gunzip check its trailer (CRC and length): bytes after it are refused too.
  if (await reader.more()) throw new ArchiveError('the archive has bytes after its manifest (damaged)');
  return manifest;
}
