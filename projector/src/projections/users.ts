import { assertNever, isEventOf, normalizeEmail, roundCents, STREAM_EVENT_TYPES, type DomainEventOf, type UserEvent } from '@pass/events';
import { rankKey } from '../read-models/search';
import type { UserRow } from '../read-models/types';
import type { PositionedEvent } from './types';
import { projection } from './projection';

const isUserEvent = isEventOf('user');

/** The users whose rows a batch touches (every event of a user stream), to load them first. */
export function usersOf(events: Iterable<PositionedEvent>): Set<string> {
  const ids = new Set<string>();
  for (const { event } of events) if (isUserEvent(event)) ids.add(event.data.userId);
  return ids;
}

/**
 * Registry rows: balance, passes, priority and public card of every user. The registration count
 * (MainRecord.userSeq) gives each row its ordinal, the ranking's tie-break. Events for a user
 * without a row are ignored: a user stream always starts with UserRegistered, so that only
 * happens to a corrupt stream.
 */
export const users = projection({
  handles: STREAM_EVENT_TYPES.user,
  evolve(copy, event) {
    if (event.type === 'UserRegistered') {
      copy.main.userSeq += 1;
      copy.rows.set(event.data.userId, registered(event.data, copy.main.userSeq));
      return;
    }
    const row = copy.row(event.data.userId);
    if (!row) return;
    evolveRow(row, event);
    if (event.type === 'MemberErased') copy.erased.add(event.data.userId);
  },
  rowChanged(_before, after, _copy, out) {
    out.push({ op: 'user', row: after });
  },
  rowErased(before, _copy, out) {
    out.push({ op: 'userRemove', userId: before.userId, key: before.key, email: before.email ? normalizeEmail(before.email) : '' });
  },
});

function registered(data: DomainEventOf<'UserRegistered'>['data'], seq: number): UserRow {
  return {
    userId: data.userId,
    key: rankKey(seq),
    email: data.email,
    priority: data.priority,
    points: data.points,
    passes: 0,
    buyed: 0,
    fullname: '',
    country: '',
    link: '',
    image: null,
    message: '',
    createdAt: data.registeredAt,
    updatedAt: data.registeredAt,
  };
}

const emptyCard = { fullname: '', country: '', link: '', image: null, message: '' } as const;

function evolveRow(row: UserRow, event: Exclude<UserEvent, { type: 'UserRegistered' }>): void {
  switch (event.type) {
    case 'FreePointAwarded':
      row.points += event.data.points;
      row.updatedAt = event.data.awardedAt;
      return;
    case 'PointsPurchased':
      row.points += event.data.points;
      row.buyed = roundCents(row.buyed + event.data.amountUsd);
      row.updatedAt = event.data.purchasedAt;
      return;
    case 'PurchaseReversed':
      row.points -= event.data.points;
      row.buyed = roundCents(row.buyed - event.data.amountUsd);
      row.updatedAt = event.data.reversedAt;
      return;
    case 'PassesClaimed':
      row.points -= event.data.pointsSpent;
      row.passes += event.data.passes;
      row.updatedAt = event.data.claimedAt;
      return;
    case 'PriorityChanged':
      row.priority = event.data.priority;
      row.updatedAt = event.data.changedAt;
      return;
    case 'CertificatePosted':
    case 'CertificateUpdated': {
      const data = event.data;
      row.fullname = data.fullname;
      row.country = data.country;
      row.link = data.link;
      row.image = data.image;
      row.message = data.message;
      row.updatedAt = event.type === 'CertificatePosted' ? event.data.postedAt : event.data.updatedAt;
      return;
    }
    case 'ChatMessageSent':
      row.points -= event.data.pointsSpent;
      row.updatedAt = event.data.sentAt;
      return;
    case 'MemberPostDeleted':
      // The admin removes the public card (name, photo, link, message, country); the member
      // keeps their account, points and passes, so they stay counted and ranked.
      Object.assign(row, emptyCard);
      row.updatedAt = event.data.deletedAt;
      return;
    case 'PasswordChanged':
    case 'PasswordResetRequested':
      // Access, not the registry: nothing a reader sees changes.
      return;
    case 'MemberErased':
      // The row leaves the registry at the end of the batch (rowErased); later events of the
      // member find no row. Blanked now so nothing in this batch reads its personal fields.
      Object.assign(row, emptyCard);
      row.email = '';
      row.updatedAt = event.data.erasedAt;
      return;
    default:
      assertNever(event);
  }
}

/** Same values (what a stored row write would change); `image` is compared by content. */
export function sameRow(a: UserRow, b: UserRow): boolean {
  return (
    a.userId === b.userId &&
    a.key === b.key &&
    a.email === b.email &&
    a.priority === b.priority &&
    a.points === b.points &&
    a.passes === b.passes &&
    a.buyed === b.buyed &&
    a.fullname === b.fullname &&
    a.country === b.country &&
    a.link === b.link &&
    a.message === b.message &&
    a.createdAt === b.createdAt &&
    a.updatedAt === b.updatedAt &&
    (a.image === b.image || JSON.stringify(a.image) === JSON.stringify(b.image))
  );
}
