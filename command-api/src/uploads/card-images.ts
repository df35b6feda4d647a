import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { toCurrentEvent, type EventStore, type Image } from '@pass/events';
import type { Logger } from 'pino';
import { INCOMING_DIR, removeImage, uploadPath } from './process-image';

/**
 * A member's card image over its life: processed into `incoming/` (nobody's yet), adopted into
 * the member's name under `cards/` just before the post is appended, withdrawn (deleted) once
 * an appended event replaced or removed it. A file's name says whose card it can be, and each
 * change in flight leaves a marker under `pending/`, so the orphan sweep (orphan-sweep.ts) checks
 * only the members a crash interrupted, never every member or every event.
 */
export const CARDS_DIR = 'cards';
/** One marker per card change in flight: `pending/<member id>.<random>`. */
export const PENDING_DIR = 'pending';
export const PENDING_FILE = /^([\w-]{1,100})\.[0-9a-f]{16}$/;

/** Member ids are generated UUIDs; the pattern keeps any other text out of a file name. */
const MEMBER_ID = /^[\w-]{1,100}$/;
/** `<member id>.<image id>.webp`; a member id has no dot. */
export const CARD_FILE = /^([\w-]{1,100})\.([0-9a-f]{32})\.webp$/;

/** `cards/<first two characters of the member id>/<member id>.<image id>.webp`: ~4,000 names a folder at 1M members. */
export function cardPath(memberId: string, imageId: string): string {
  return `${CARDS_DIR}/${memberId.slice(0, 2)}/${memberId}.${imageId}.webp`;
}

/**
 * Moves a processed image from `incoming/` to the member's name (a rename on the shared folder:
 * atomic, the bytes stay). Anything else (an image job of an older release) stays where it is.
 */
export async function adoptImage(uploadsDir: string, image: Image, memberId: string): Promise<Image> {
  if (!image.path.startsWith(`${INCOMING_DIR}/`) || !MEMBER_ID.test(memberId) || !/^[0-9a-f]{32}$/.test(image.public_id)) return image;
  const path = cardPath(memberId, image.public_id);
  const to = uploadPath(uploadsDir, path)!;
  await mkdir(dirname(to), { recursive: true });
  await rename(uploadPath(uploadsDir, image.path)!, to);
  return { path, public_id: image.public_id, url: `/uploads/${path}` };
}

export interface CardChange {
  /** The change's files are settled (kept, removed or withdrawn): the sweep need not look. */
  settle(): Promise<void>;
}

/**
 * Marks a change of `memberId`'s card before any file of it moves: a crash (or an append of
 * unknown outcome) before `settle` leaves the marker, and the next start's sweep checks this
 * member's files against the stream. Written on the shared folder, so any process's sweep sees it.
 */
export async function markCardChange(uploadsDir: string, memberId: string): Promise<CardChange> {
  if (!MEMBER_ID.test(memberId)) return { settle: async () => {} };
  const marker = join(uploadsDir, PENDING_DIR, `${memberId}.${randomBytes(8).toString('hex')}`);
  await mkdir(dirname(marker), { recursive: true });
  await writeFile(marker, '', { flag: 'wx' });
  return { settle: () => rm(marker, { force: true }) };
}

const PAGE = 50;

/**
 * The card image a member's stream holds at `atRevision` (default: now), read backwards to the
 * last event that sets or clears it; the member evolve (the kernel's member-state.ts) gives these three
 * events the same meaning. Never re-read from a cache: the answer decides a deletion.
 */
export async function cardImageOf(store: EventStore, streamId: string, atRevision?: number): Promise<Image | null> {
  let from = atRevision;
  while (from === undefined || from >= 0) {
    const page = await store.readStream(streamId, { direction: 'backwards', maxCount: PAGE, ...(from === undefined ? {} : { fromRevision: from }) });
    for (const recorded of page) {
      const event = toCurrentEvent(recorded);
      if (event.type === 'CertificatePosted' || event.type === 'CertificateUpdated') return event.data.image;
      if (event.type === 'MemberPostDeleted') return null;
    }
    if (page.length < PAGE) return null;
    from = page.at(-1)!.revision - 1;
  }
  return null;
}

export interface WithdrawDeps {
  store: EventStore;
  uploadsDir: string;
  logger: Logger;
}

/**
 * After an appended (acknowledged) card event: deletes the image the card held just before it,
 * when the card no longer shows it. `handled` is the command's answer: its events end at
 * `revision`. A failure is logged, not answered: the event stands, and the next start's sweep
 * removes the file. True when nothing is left to withdraw.
 */
export async function withdrawReplacedImage(
  deps: WithdrawDeps,
  streamId: string,
  handled: { revision: number; events: readonly unknown[] },
  current: Image | null | undefined,
): Promise<boolean> {
  try {
    const before = await cardImageOf(deps.store, streamId, handled.revision - handled.events.length);
    if (before && before.path !== current?.path) await removeImage(deps.uploadsDir, before);
    return true;
  } catch (error) {
    deps.logger.warn({ err: error }, 'a withdrawn card image could not be deleted; the next orphan sweep will');
    return false;
  }
}
