import type { DomainEvent } from '@pass/events';
import { rankKey } from '../read-models/search';
import type { UserRow } from '../read-models/types';
import { roundCents } from './main-data';

/** The user id an event is about, when it belongs to a user's row. */
export function userIdOf(event: DomainEvent): string | undefined {
  switch (event.type) {
    case 'UserRegistered':
    case 'FreePointAwarded':
    case 'PointsPurchased':
    case 'PurchaseReversed':
    case 'PassesClaimed':
    case 'PriorityChanged':
    case 'CertificatePosted':
    case 'CertificateUpdated':
    case 'ChatMessageSent':
    case 'MemberPostDeleted':
      return event.data.userId;
    default:
      return undefined;
  }
}

const emptyCard = { fullname: '', country: '', link: '', image: null, message: '' } as const;

/**
 * A user's row: balance, passes, priority and public card. `seq` is the registration ordinal
 * (MainRecord.userSeq after this registration). Events for a user without a row are ignored:
 * the user stream always starts with UserRegistered, so that only happens to a corrupt stream.
 *
 * `row` is the batch's own working copy (projectBatch copies a stored row once, on first
 * touch) and is updated in place: a fresh object per event was most of the projection's garbage.
 * Returns the row to keep (a new one for UserRegistered).
 */
export function evolveUser(row: UserRow | undefined, event: DomainEvent, seq: number): UserRow | undefined {
  if (event.type === 'UserRegistered') {
    const d = event.data;
    return {
      userId: d.userId,
      key: rankKey(seq),
      email: d.email,
      priority: d.priority,
      points: d.points,
      passes: 0,
      buyed: 0,
      fullname: '',
      country: '',
      link: '',
      image: null,
      message: '',
      createdAt: d.registeredAt,
      updatedAt: d.registeredAt,
    };
  }
  if (!row) return undefined;
  switch (event.type) {
    case 'FreePointAwarded':
      row.points += event.data.points;
      row.updatedAt = event.data.awardedAt;
      break;
    case 'PointsPurchased':
      row.points += event.data.points;
      row.buyed = roundCents(row.buyed + event.data.amountUsd);
      row.updatedAt = event.data.purchasedAt;
      break;
    case 'PurchaseReversed':
      row.points -= event.data.points;
      row.buyed = roundCents(row.buyed - event.data.amountUsd);
      row.updatedAt = event.data.reversedAt;
      break;
    case 'PassesClaimed':
      row.points -= event.data.pointsSpent;
      row.passes += event.data.passes;
      row.updatedAt = event.data.claimedAt;
      break;
    case 'PriorityChanged':
      row.priority = event.data.priority;
      row.updatedAt = event.data.changedAt;
      break;
    case 'CertificatePosted':
    case 'CertificateUpdated': {
      const d = event.data;
      row.fullname = d.fullname;
      row.country = d.country;
      row.link = d.link;
      row.image = d.image;
      row.message = d.message;
      row.updatedAt = event.type === 'CertificatePosted' ? event.data.postedAt : event.data.updatedAt;
      break;
    }
    case 'ChatMessageSent':
      row.points -= event.data.pointsSpent;
      row.updatedAt = event.data.sentAt;
      break;
    case 'MemberPostDeleted':
      // The admin removes the public card (name, photo, link, message, country); the member
      // keeps their account, points and passes, so they stay counted and ranked.
      Object.assign(row, emptyCard);
      row.updatedAt = event.data.deletedAt;
      break;
  }
  return row;
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
