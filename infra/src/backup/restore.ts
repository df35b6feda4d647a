/**
 * `npm run restore -- <file>`: fills an empty DATA_DIR from an archive. Everything is written
 * into a staging folder inside DATA_DIR first (the events into a fresh embedded store, the files
 * beside it) and moved into place only once the whole archive has matched its manifest, so a
 * damaged or truncated archive leaves DATA_DIR as it was.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { access, cp, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openPgliteEventStore, type SqlEventStore } from '@pass/events/store';
import type { Settings } from '../config/settings';
import { ArchiveError, readArchive, type Manifest } from './archive';
import { backupEventSchema, insertEvents, storedEventCount, type BackupEvent } from './events';
import type { Progress } from './progress';
import { pgliteDir } from './source';

const SCHEMA = 'event_store';
const UPLOADS_STAGE = '.uploads';

/** Missing (created, and removed again on failure) or empty; anything else is refused. */
async function emptyFolder(dir: string, what: string): Promise<'created' | 'empty'> {
  try {
    // A filesystem's own lost+found (DATA_DIR on a dedicated disk) does not count.
    const entries = (await readdir(dir)).filter((name) => name !== 'lost+found');
    if (entries.length > 0) throw new ArchiveError(`${what} ${dir} is not empty; restore only fills an empty one (nothing was changed)`);
    return 'empty';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
    return 'created';
  }
}

function parseEvent(line: string): BackupEvent {
  try {
    return backupEventSchema.parse(JSON.parse(line));
  } catch {
    throw new ArchiveError('the archive holds an unreadable event (damaged)');
  }
}

async function stageArchive(file: string, stage: string, store: SqlEventStore, progress: Progress): Promise<Manifest> {
  let events = 0;
  let files = 0;
  const input = createReadStream(file);
  return readArchive(input, {
    events: async (lines) => {
      await insertEvents(store, SCHEMA, lines.map(parseEvent));
      events += lines.length;
      progress.update(`${events.toLocaleString('en')} events`);
    },
    file: async (header, body) => {
      const target = join(stage, header.root === 'uploads' ? UPLOADS_STAGE : '.', header.path);
      await mkdir(dirname(target), { recursive: true });
      await pipeline(body, createWriteStream(target, { mode: 0o600 }));
      files += 1;
      progress.update(`${events.toLocaleString('en')} events, ${files} files`);
    },
  });
}

/** Moves the staged entries into their places (same filesystem: renames). */
async function moveIntoPlace(stage: string, dataDir: string, uploadsDir: string): Promise<void> {
  for (const name of await readdir(stage)) {
    if (name === UPLOADS_STAGE) continue;
    await rename(join(stage, name), join(dataDir, name));
  }
  const uploads = join(stage, UPLOADS_STAGE);
  const staged = await readdir(uploads).catch(() => [] as string[]);
  if (staged.length > 0) await mkdir(uploadsDir, { recursive: true });
  for (const name of staged) {
    // UPLOADS_DIR outside DATA_DIR may be on another filesystem.
    await rename(join(uploads, name), join(uploadsDir, name)).catch(() => cp(join(uploads, name), join(uploadsDir, name), { recursive: true }));
  }
  await rm(stage, { recursive: true, force: true });
}

export async function restoreBackup(settings: Settings, archiveFile: string, progress: Progress): Promise<Manifest> {
  const file = resolve(archiveFile);
  const storeDir = pgliteDir(settings);
  if (storeDir !== join(settings.dataDir, 'events')) {
    throw new ArchiveError(`restore fills the embedded store in DATA_DIR/events; unset EVENT_STORE_URL (got ${settings.eventStoreUrl.split(':')[0]}:…) or use move-to-postgres`);
  }
  await access(file).catch(() => {
    throw new ArchiveError(`cannot read ${file} (no such file, or not readable)`);
  });
  const dataState = await emptyFolder(settings.dataDir, 'DATA_DIR');
  const uploadsOutside = !resolve(settings.uploadsDir).startsWith(settings.dataDir + '/');
  const uploadsState = uploadsOutside ? await emptyFolder(settings.uploadsDir, 'UPLOADS_DIR').catch(async (error: unknown) => {
    if (dataState === 'created') await rmdir(settings.dataDir).catch(() => undefined);
    throw error;
  }) : undefined;
  const stage = join(settings.dataDir, `.restore-${process.pid}`);
  let store: SqlEventStore | undefined;
  try {
    store = await openPgliteEventStore({ dataDir: join(stage, 'events') });
    const manifest = await stageArchive(file, stage, store, progress);
    const stored = await storedEventCount(store, SCHEMA);
    if (stored !== manifest.eventCount) throw new ArchiveError(`restored ${stored} events but the manifest lists ${manifest.eventCount}`);
    await store.close();
    store = undefined;
    await moveIntoPlace(stage, settings.dataDir, settings.uploadsDir);
    progress.done(`restore: ${settings.dataDir}: ${manifest.eventCount} events (head ${manifest.headPosition ?? 'none'} at the source), ${manifest.fileCount} files, from a backup of ${manifest.createdAt}`);
    return manifest;
  } catch (error) {
    await store?.close().catch(() => undefined);
    await rm(stage, { recursive: true, force: true });
    if (dataState === 'created') await rmdir(settings.dataDir).catch(() => undefined);
    if (uploadsState === 'created') await rmdir(settings.uploadsDir).catch(() => undefined);
    throw error;
  }
}
