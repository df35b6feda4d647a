/**
 * `npm run backup -- <file>`: the events (up to the head when it began), then DATA_DIR's other
 * files as they were at that instant (a running site links them into a snapshot; see
 * `linkSnapshotSync`), into one archive, written beside the target and renamed into place when whole.
 */
import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Settings } from '../config/settings';
import { ArchiveError, ArchiveWriter, FORMAT, FORMAT_VERSION, type Manifest } from './archive';
import { recordLastBackup, type DataFile } from './data-dir';
import type { Progress } from './progress';
import { openSource, type EventSource } from './source';

async function writeEvents(archive: ArchiveWriter, source: EventSource, progress: Progress) {
  let count = 0;
  let bytes = 0;
  for await (const lines of source.pages()) {
    const body = Buffer.from(lines.join('\n') + '\n');
    await archive.frame({ kind: 'events', count: lines.length, size: body.length }, body);
    count += lines.length;
    bytes += body.length;
    progress.update(`${count.toLocaleString('en')} events, ${mb(archive.compressedBytes)} written`);
  }
  return { count, bytes };
}

/** One file, at the size it has when opened (a log that grows meanwhile is cut there); a file gone meanwhile is skipped. */
async function writeFile(archive: ArchiveWriter, file: DataFile): Promise<number | undefined> {
  let handle;
  try {
    handle = await open(file.absolute, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    const body = handle.createReadStream({ start: 0, end: Math.max(0, size - 1), autoClose: false });
    return await archive.streamFrame({ kind: 'file', path: file.path, root: file.root, size }, size === 0 ? [] : body);
  } finally {
    await handle.close();
  }
}

async function writeFiles(archive: ArchiveWriter, source: EventSource, progress: Progress) {
  let count = 0;
  let bytes = 0;
  for (const file of await source.files()) {
    const written = await writeFile(archive, file);
    if (written === undefined) continue;
    count += 1;
    bytes += written;
    progress.update(`${count} files, ${mb(archive.compressedBytes)} written`);
  }
  return { count, bytes };
}

export async function takeBackup(settings: Settings, target: string, progress: Progress): Promise<{ manifest: Manifest; bytes: number }> {
  const file = resolve(target);
  if (!existsSync(settings.dataDir)) throw new ArchiveError(`DATA_DIR ${settings.dataDir} does not exist; set DATA_DIR as the site has it`);
  const partial = `${file}.partial`;
  const source = await openSource(settings);
  const archive = new ArchiveWriter(partial);
  try {
    progress.line(`backup: reading events ${source.mode === 'live' ? 'through the running site' : 'from the store (no site running)'}`);
    await archive.frame({ kind: 'format', format: FORMAT, version: FORMAT_VERSION, size: 0 });
    const events = await writeEvents(archive, source, progress);
    const files = await writeFiles(archive, source, progress);
    const manifest = await archive.finish({
      createdAt: new Date().toISOString(),
      source: source.mode,
      eventCount: events.count,
      headPosition: source.head,
      eventBytes: events.bytes,
      fileCount: files.count,
      fileBytes: files.bytes,
    });
    await rename(partial, file);
    await recordLastBackup(settings.dataDir, { at: manifest.createdAt, file, bytes: archive.compressedBytes, events: events.count });
    progress.done(`backup: ${file}: ${events.count} events, ${files.count} files (${mb(files.bytes)}), ${mb(archive.compressedBytes)} compressed, sha256 ${manifest.sha256.slice(0, 12)}…`);
    return { manifest, bytes: archive.compressedBytes };
  } catch (error) {
    await archive.abort();
    await rm(partial, { force: true });
    throw error;
  } finally {
    await source.close();
  }
}

export const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
