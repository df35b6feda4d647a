import { readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { streams, type EventStore } from '@pass/events';
import type { Logger } from 'pino';
import { CARD_FILE, CARDS_DIR, cardImageOf, PENDING_DIR, PENDING_FILE } from './card-images';
import { INCOMING_DIR } from './process-image';

/**
 * An upload in flight (processed, not yet appended) is at most a request old; an hour leaves
 * room for slow image jobs and clocks a little apart on a shared folder.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;

export interface OrphanSweepOptions {
  uploadsDir: string;
  store: EventStore;
  logger: Logger;
  graceMs?: number;
  now?: () => number;
}

export interface OrphanSweep {
  /** Settles when the sweep has finished (or stopped); never rejects. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Removes, in the background, the upload files no live card holds: what a crash (or an append of
 * unknown outcome) left between writing an image and appending its post, or between appending a
 * replacement and deleting the old file. Only old `incoming/` files and the members with an old
 * `pending/` marker (card-images.ts) are looked at, each by one backwards read of their stream
 * (`cardImageOf`), so a start costs a read per interrupted change, not per member. Files younger
 * than the grace are left alone: another process sharing the folder may be about to append them.
 */
export function startOrphanSweep(options: OrphanSweepOptions): OrphanSweep {
  let stopped = false;
  const done = sweep(options, () => stopped).catch((error: unknown) => options.logger.warn({ err: error }, 'orphan sweep failed'));
  return {
    done,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

interface Tally {
  removed: number;
  members: number;
}

async function sweep(options: OrphanSweepOptions, stopped: () => boolean): Promise<void> {
  const cutoff = (options.now ?? Date.now)() - (options.graceMs ?? ORPHAN_GRACE_MS);
  const tally: Tally = { removed: 0, members: 0 };
  // Never adopted by a post, so referenced by no event.
  for (const file of await filesIn(join(options.uploadsDir, INCOMING_DIR))) {
    if (stopped()) return;
    if (await olderThan(file, cutoff)) tally.removed += await remove(file);
  }
  const markers = new Map<string, string[]>();
  for (const name of await namesIn(join(options.uploadsDir, PENDING_DIR))) {
    const marker = join(options.uploadsDir, PENDING_DIR, name);
    const memberId = PENDING_FILE.exec(name)?.[1];
    if (memberId && (await olderThan(marker, cutoff))) markers.set(memberId, [...(markers.get(memberId) ?? []), marker]);
  }
  for (const [memberId, memberMarkers] of markers) {
    if (stopped()) return;
    await sweepMember(options, memberId, cutoff, tally);
    for (const marker of memberMarkers) await remove(marker);
  }
  options.logger.info({ removed: tally.removed, membersChecked: tally.members }, 'orphan sweep done');
}

/** One interrupted member: of their old card files, only the image their stream holds stays. */
async function sweepMember(options: OrphanSweepOptions, memberId: string, cutoff: number, tally: Tally): Promise<void> {
  tally.members++;
  const shard = join(options.uploadsDir, CARDS_DIR, memberId.slice(0, 2));
  const names = (await namesIn(shard)).filter((name) => CARD_FILE.exec(name)?.[1] === memberId);
  if (names.length === 0) return;
  const live = await cardImageOf(options.store, streams.user(memberId));
  for (const name of names) {
    if (live?.path === `${CARDS_DIR}/${basename(shard)}/${name}`) continue;
    if (await olderThan(join(shard, name), cutoff)) tally.removed += await remove(join(shard, name));
  }
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

const filesIn = async (dir: string) => (await namesIn(dir)).map((name) => join(dir, name));

async function olderThan(file: string, cutoff: number): Promise<boolean> {
  try {
    const info = await stat(file);
    return info.isFile() && info.mtimeMs < cutoff;
  } catch {
    return false; // gone meanwhile (another process's sweep or withdrawal)
  }
}

async function remove(file: string): Promise<number> {
  await rm(file, { force: true });
  return 1;
}
