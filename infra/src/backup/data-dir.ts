/**
 * What of DATA_DIR a backup carries: everything (uploads, the session secret and sessions, any
 * key store or folder added later) except the event store's own files, which travel as events,
 * and what the site rebuilds by itself (snapshots, caches, locks, temporary files).
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readdirSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod';

/** Top-level entries of DATA_DIR left out of a backup, with why. */
const LEFT_OUT = new Set([
  'events', // the PGlite store: copied as events, consistently, through the port
  'read-models.snapshot', // rebuilt from the events on the first start (a snapshot names a position)
  'aggregate-snapshots', // command-api's cache of stream state; one newer than the copied events would be wrong
  'last-backup.json', // this site's own record, not the restored one's
]);
/** Our own staging folders (a restore's, a live backup's file snapshot) and temporary files. */
const SNAPSHOT_PREFIX = '.backup-';
const isTemporary = (name: string) => name.endsWith('.tmp') || name.endsWith('.lock') || name.startsWith('.restore-') || name.startsWith(SNAPSHOT_PREFIX);
/** In a snapshot, the files of an UPLOADS_DIR outside DATA_DIR. */
const SNAPSHOT_UPLOADS = '.uploads';

export interface DataFile {
  /** Relative to its root, `/`-separated. */
  path: string;
  root: 'data' | 'uploads';
  absolute: string;
  size: number;
}

type Skip = (rel: string, name: string) => boolean;
const dataSkip: Skip = (rel, name) => (!rel.includes('/') && LEFT_OUT.has(name)) || isTemporary(name);
const uploadsSkip: Skip = (_rel, name) => isTemporary(name);
const toRel = (base: string, absolute: string) => relative(base, absolute).split(sep).join('/');

async function walk(dir: string, base: string, root: DataFile['root'], skip: Skip, out: DataFile[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const absolute = join(dir, entry.name);
    const rel = toRel(base, absolute);
    if (skip(rel, entry.name)) continue;
    if (entry.isDirectory()) await walk(absolute, base, root, skip, out);
    else if (entry.isFile()) out.push({ path: rel, root, absolute, size: (await stat(absolute)).size });
  }
}

const inside = (dir: string, parent: string) => {
  const rel = relative(parent, dir);
  return !rel.startsWith('..') && !isAbsolute(rel);
};

/** The files to back up from DATA_DIR itself (no site running). UPLOADS_DIR outside it comes under its own root. */
export async function dataFiles(dataDir: string, uploadsDir: string): Promise<DataFile[]> {
  const files: DataFile[] = [];
  await walk(dataDir, dataDir, 'data', dataSkip, files);
  if (!inside(uploadsDir, dataDir)) await walk(uploadsDir, uploadsDir, 'uploads', uploadsSkip, files);
  return files;
}

/** The files of a snapshot made by `linkSnapshotSync`. */
export async function snapshotFiles(snapshot: string): Promise<DataFile[]> {
  const files: DataFile[] = [];
  await walk(snapshot, snapshot, 'data', (rel, name) => rel === SNAPSHOT_UPLOADS || dataSkip(rel, name), files);
  await walk(join(snapshot, SNAPSHOT_UPLOADS), join(snapshot, SNAPSHOT_UPLOADS), 'uploads', uploadsSkip, files);
  return files;
}

function linkTreeSync(dir: string, base: string, into: string, skip: Skip): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    const absolute = join(dir, entry.name);
    const rel = toRel(base, absolute);
    if (skip(rel, entry.name)) continue;
    const target = join(into, rel);
    if (entry.isDirectory()) {
      mkdirSync(target, { recursive: true });
      linkTreeSync(absolute, base, into, skip);
    } else if (entry.isFile()) {
      try {
        linkSync(absolute, target);
      } catch (error) {
        // Another filesystem (an UPLOADS_DIR elsewhere): a copy instead.
        if ((error as NodeJS.ErrnoException).code === 'EXDEV') copyFileSync(absolute, target);
        else if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }
}

/**
 * The live site's files as they are at this instant: hard links (no copy of the bytes) to every
 * file a backup carries, in `DATA_DIR/.backup-<id>/`. Synchronous on purpose: the standalone is
 * one process, so while it runs no request renames, deletes or writes a file, and the snapshot
 * is whole with respect to the events appended until then (an upload is put in place before its
 * event is appended, and withdrawn only after a later event). Hard links cost a directory entry
 * per file, made while the process waits; the backup CLI removes the folder when done.
 */
export function linkSnapshotSync(dataDir: string, uploadsDir: string): string {
  const snapshot = join(dataDir, `${SNAPSHOT_PREFIX}${Date.now()}-${randomBytes(4).toString('hex')}`);
  mkdirSync(snapshot);
  linkTreeSync(dataDir, dataDir, snapshot, dataSkip);
  if (!inside(uploadsDir, dataDir)) linkTreeSync(uploadsDir, uploadsDir, join(snapshot, SNAPSHOT_UPLOADS), uploadsSkip);
  return snapshot;
}

/** Snapshots a killed backup left behind (older than an hour). */
export async function removeStaleSnapshots(dataDir: string, olderThanMs = 60 * 60_000): Promise<void> {
  for (const name of await readdir(dataDir).catch(() => [] as string[])) {
    const made = Number(/^\.backup-(\d+)-/.exec(name)?.[1]);
    if (made && Date.now() - made > olderThanMs) await rm(join(dataDir, name), { recursive: true, force: true });
  }
}

export const LAST_BACKUP_FILE = 'last-backup.json';

export const lastBackupSchema = z.object({
  at: z.iso.datetime(),
  file: z.string(),
  bytes: z.number().int().nonnegative(),
  events: z.number().int().nonnegative(),
});
export type LastBackup = z.infer<typeof lastBackupSchema>;

/** Recorded after a backup succeeded; the standalone's /metrics reads it (alert: older than a day). */
export async function recordLastBackup(dataDir: string, record: LastBackup): Promise<void> {
  const file = join(dataDir, LAST_BACKUP_FILE);
  await writeFile(`${file}.tmp`, JSON.stringify(record) + '\n');
  await rename(`${file}.tmp`, file);
}

export async function readLastBackup(dataDir: string): Promise<LastBackup | undefined> {
  try {
    const parsed = lastBackupSchema.safeParse(JSON.parse(await readFile(join(dataDir, LAST_BACKUP_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
