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
      ...emptyCard,
      createdAt: d.registeredAt,
      updatedAt: d.registeredAt,
    };
  }
  if (!row) return undefined;
  switch (event.type) {
    case 'FreePointAwarded':
      return { ...row, points: row.points + event.data.points, updatedAt: event.data.awardedAt };
    case 'PointsPurchased':
      return {
        ...row,
        points: row.points + event.data.points,
        buyed: roundCents(row.buyed + event.data.amountUsd),
        updatedAt: event.data.purchasedAt,
      };
    case 'PurchaseReversed':
      return {
        ...row,
        points: row.points - event.data.points,
        buyed: roundCents(row.buyed - event.data.amountUsd),
        updatedAt: event.data.reversedAt,
      };
    case 'PassesClaimed':
      return {
        ...row,
        points: row.points - event.data.pointsSpent,
        passes: row.passes + event.data.passes,
        updatedAt: event.data.claimedAt,
      };
    case 'PriorityChanged':
      return { ...row, priority: event.data.priority, updatedAt: event.data.changedAt };
    case 'CertificatePosted':
    case 'CertificateUpdated': {
      const d = event.data;
      const at = event.type === 'CertificatePosted' ? event.data.postedAt : event.data.updatedAt;
      return { ...row, fullname: d.fullname, country: d.country, link: d.link, image: d.image, message: d.message, updatedAt: at };
    }
    case 'ChatMessageSent':
      return { ...row, points: row.points - event.data.pointsSpent, updatedAt: event.data.sentAt };
    case 'MemberPostDeleted':
      // The admin removes the public card (name, photo, link, message, country); the member
      // keeps their account, points and passes, so they stay counted and ranked.
      return { ...row, ...emptyCard, updatedAt: event.data.deletedAt };
    default:
      return row;
  }
}
