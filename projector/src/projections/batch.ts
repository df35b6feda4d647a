import {
  comparePositions,
  positionFromString,
  positionToString,
  type ChatMessageView,
  type DomainEvent,
  type GlobalPosition,
  type GlobalPostView,
} from '@pass/events';
import type { BatchSnapshot, ReadModelWrite, UserRow, WriteBatch } from '../read-models/types';
import { projectChat } from './chat';
import { countryWrites } from './countries';
import { evolveGlobalPosts } from './global-posts';
import { evolveMainData } from './main-data';
import { rankingWrites } from './ranking';
import { evolveUser, userIdOf } from './users';

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

  let main = snapshot.main;
  let posts = snapshot.posts;
  const rows = new Map<string, UserRow | undefined>(snapshot.users);
  const touched = new Set<string>();
  const chatWrites: ReadModelWrite[] = [];
  const live: LiveNotice[] = [];

  for (const { event } of fresh) {
    main = evolveMainData(main, event);
    const userId = userIdOf(event);
    if (userId !== undefined) {
      const next = evolveUser(rows.get(userId), event, main.userSeq);
      if (next) {
        rows.set(userId, next);
        touched.add(userId);
      }
    }
    const chat = projectChat(main, event);
    main = chat.main;
    chatWrites.push(...chat.writes);
    if (chat.message) live.push({ kind: 'chatMessage', message: chat.message });
    if (chat.cleared) live.push({ kind: 'chatCleared' });
    const postResult = evolveGlobalPosts(posts, event, userId === undefined ? undefined : rows.get(userId));
    posts = postResult.posts;
    if (postResult.published) live.push({ kind: postResult.published.kind, post: postResult.published.post });
  }

  const writes: ReadModelWrite[] = [];
  let countriesChanged = false;
  for (const userId of touched) {
    const before = snapshot.users.get(userId);
    const now = rows.get(userId)!;
    if (before && JSON.stringify(before) === JSON.stringify(now)) continue;
    writes.push({ op: 'user', row: now });
    const ranking = rankingWrites(before, now);
    const countries = countryWrites(before, now);
    countriesChanged ||= countries.length > 0;
    writes.push(...ranking.writes, ...countries);
    main = { ...main, members: main.members + ranking.membersDelta };
  }
  writes.push(...chatWrites);
  if (posts !== snapshot.posts) writes.push({ op: 'posts', posts });
  const mainChanged = JSON.stringify(main) !== JSON.stringify(snapshot.main);
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
