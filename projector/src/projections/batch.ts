import {
  comparePositions,
  positionFromString,
  positionToString,
  type ChatMessageView,
  type DomainEvent,
  type GlobalPosition,
  type GlobalPostView,
} from '@pass/events';
import { copyRow, type BatchSnapshot, type MainRecord, type ReadModelWrite, type UserRow, type WriteBatch } from '../read-models/types';
import { projectChat } from './chat';
import { countryWrites } from './countries';
import { evolveGlobalPosts } from './global-posts';
import { evolveMainData, sameMain } from './main-data';
import { rankingWrites } from './ranking';
import { evolveUser, sameRow, userIdOf } from './users';

export interface PositionedEvent {
  position: GlobalPosition;
  event: DomainEvent;
}

/** What changed in a batch that connected browsers should hear about once it is stored. */
export type LiveNotice =
  | { kind: 'mainData' }
  | { kind: 'globalMember' | 'globalMessage'; post: GlobalPostView }
  | { kind: 'chatMessage'; message: ChatMessageView }
  | { kind: 'chatCleared' };

export interface ProjectedBatch {
  /** null when every event was already projected (a re-delivery). */
  batch: WriteBatch | null;
  live: LiveNotice[];
  /** Events actually projected (re-delivered ones excluded). */
  applied: number;
}

/** The users a batch touches, to load their rows before projecting. */
export function usersOf(events: Iterable<PositionedEvent>): Set<string> {
  const ids = new Set<string>();
  for (const { event } of events) {
    const id = userIdOf(event);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

/**
 * Runs every projection over a batch, starting from the stored values in `snapshot`, and returns
 * the writes to store together with the batch's last position. Pure: same events and snapshot,
 * same writes. Events at or before the stored checkpoint are skipped, so a re-delivered batch
 * changes nothing. Per-user writes are the difference between the row before and after the
 * whole batch, so a user touched by 50 events costs one row write.
 */
export function projectBatch(events: PositionedEvent[], snapshot: BatchSnapshot): ProjectedBatch {
  const after = snapshot.checkpoint === null ? null : positionFromString(snapshot.checkpoint);
  const fresh = after === null ? events : events.filter((e) => comparePositions(e.position, after) > 0);
  if (fresh.length === 0) return { batch: null, live: [], applied: 0 };

  // Working copies, updated in place event by event; the snapshot stays as read (the diff base).
  const main: MainRecord = { ...snapshot.main };
  let posts = snapshot.posts;
  const rows = new Map<string, UserRow>();
  const chatWrites: ReadModelWrite[] = [];
  const live: LiveNotice[] = [];

  for (const { event } of fresh) {
    evolveMainData(main, event);
    const userId = userIdOf(event);
    let row: UserRow | undefined;
    if (userId !== undefined) {
      row = rows.get(userId);
      if (row === undefined) {
        const stored = snapshot.users.get(userId);
        row = stored && copyRow(stored);
      }
      row = evolveUser(row, event, main.userSeq);
      if (row) rows.set(userId, row);
    }
    const chat = projectChat(main, event, chatWrites);
    if (chat?.message) live.push({ kind: 'chatMessage', message: chat.message });
    if (chat?.cleared) live.push({ kind: 'chatCleared' });
    const postResult = evolveGlobalPosts(posts, event, row);
    posts = postResult.posts;
    if (postResult.published) live.push({ kind: postResult.published.kind, post: postResult.published.post });
  }

  const writes: ReadModelWrite[] = [];
  let countriesChanged = false;
  for (const [userId, now] of rows) {
    const before = snapshot.users.get(userId);
    if (before && sameRow(before, now)) continue;
    writes.push({ op: 'user', row: now });
    main.members += rankingWrites(before, now, writes);
    if (countryWrites(before, now, writes)) countriesChanged = true;
  }
  for (const w of chatWrites) writes.push(w);
  if (posts !== snapshot.posts) writes.push({ op: 'posts', posts });
  const mainChanged = !sameMain(main, snapshot.main);
  if (mainChanged) writes.push({ op: 'main', main });
  if (mainChanged || countriesChanged) live.unshift({ kind: 'mainData' });

  return {
    batch: {
      expectedCheckpoint: snapshot.checkpoint,
      checkpoint: positionToString(fresh[fresh.length - 1]!.position),
      writes,
    },
    live,
    applied: fresh.length,
  };
}
