import type { DomainEvent, GlobalPosition } from '@pass/events';
import type { PositionedEvent } from '../projections/types';

/**
 * A recorded day of the site, in store order, for projection tests: three members join, earn
 * and buy points, claim passes, post cards, chat; the admin edits the figures, resets ad views,
 * clears the chat and deletes a post.
 */
const t = (minute: number) => new Date(Date.UTC(2026, 10, 3, 9, minute)).toISOString();
const image = (id: string) => ({ path: `${id}.webp`, public_id: id, url: `/uploads/${id}.webp` });
const cert = (userId: string, fullname: string, country: string, email: string, message: string) => ({
  userId,
  fullname,
  country,
  email,
  link: `https://example.com/${userId}`,
  image: image(userId),
  message,
});

export const ANA = 'u-ana';
export const BOB = 'u-bob';
export const CY = 'u-cy';

export const recordedDay: DomainEvent[] = [
  { type: 'PassSupplySet', data: { available: 1000, setBy: 'admin-1', setAt: t(0) } },
  { type: 'MainDataEdited', data: { cpm: 2.5, donations: 10.1, startDate: '01/11/2026', editedBy: 'admin-1', editedAt: t(1) } },
  { type: 'AdminRegistered', data: { adminId: 'admin-1', email: 'root@example.com', passwordHash: 'x', registeredAt: t(0) } },
  { type: 'EmailReserved', data: { email: 'ana@example.com', userId: ANA, reservedAt: t(2) } },
  { type: 'UserRegistered', data: { userId: ANA, email: 'ana@example.com', passwordHash: 'h', points: 10, priority: '', registeredAt: t(2) } },
  { type: 'UserRegistered', data: { userId: BOB, email: 'bob@mail.org', passwordHash: 'h', points: 10, priority: '', registeredAt: t(3) } },
  { type: 'UserRegistered', data: { userId: CY, email: 'cyrus@site.io', passwordHash: 'h', points: 10, priority: 'normalUser', registeredAt: t(4) } },
  ...Array.from({ length: 11 }, (_, i): DomainEvent => ({ type: 'FreePointAwarded', data: { userId: ANA, points: 1, awardedAt: t(5 + i) } })),
  { type: 'PointsPurchased', data: { userId: BOB, provider: 'simulated', orderId: 'o1', captureId: 'c1', amountUsd: 5, points: 500, purchasedAt: t(16) } },
  { type: 'PassesReserved', data: { reservationId: 'r1', userId: ANA, passes: 1, reservedAt: t(17) } },
  { type: 'PassesClaimed', data: { userId: ANA, reservationId: 'r1', passes: 1, pointsSpent: 20, claimedAt: t(17) } },
  { type: 'PassReservationConfirmed', data: { reservationId: 'r1', userId: ANA, passes: 1, confirmedAt: t(17) } },
  { type: 'CertificatePosted', data: { ...cert(ANA, 'Ana María', 'Peru', 'ana@example.com', 'Hola a todos'), postedAt: t(18) } },
  { type: 'PassesReserved', data: { reservationId: 'r2', userId: BOB, passes: 25, reservedAt: t(19) } },
  { type: 'PassesClaimed', data: { userId: BOB, reservationId: 'r2', passes: 25, pointsSpent: 500, claimedAt: t(19) } },
  { type: 'CertificatePosted', data: { ...cert(BOB, 'Bob Stone', 'Chile', 'bob@mail.org', 'Hello'), postedAt: t(20) } },
  { type: 'PointsPurchased', data: { userId: CY, provider: 'simulated', orderId: 'o2', captureId: 'c2', amountUsd: 1, points: 100, purchasedAt: t(21) } },
  { type: 'PassesReserved', data: { reservationId: 'r3', userId: CY, passes: 2, reservedAt: t(22) } },
  { type: 'PassReservationReleased', data: { reservationId: 'r3', userId: CY, passes: 2, reason: 'claim failed', releasedAt: t(23) } },
  { type: 'PassesReserved', data: { reservationId: 'r4', userId: CY, passes: 1, reservedAt: t(24) } },
  { type: 'PassesClaimed', data: { userId: CY, reservationId: 'r4', passes: 1, pointsSpent: 20, claimedAt: t(24) } },
  { type: 'CertificatePosted', data: { ...cert(CY, 'Cy', 'Peru', 'cyrus@site.io', 'Hi from Lima'), postedAt: t(25) } },
  { type: 'ChatMessageSent', data: { userId: ANA, messageId: 'm1', nickname: 'Ana María', message: 'first!', priority: '', pointsSpent: 1, sentAt: t(26) } },
  { type: 'ChatMessageSent', data: { userId: CY, messageId: 'm2', nickname: 'Cy', message: 'hey', priority: 'normalUser', pointsSpent: 1, sentAt: t(27) } },
  { type: 'ChatCleared', data: { clearedBy: 'admin-1', clearedAt: t(28) } },
  { type: 'ChatMessageSent', data: { userId: BOB, messageId: 'm3', nickname: 'Bob Stone', message: 'anyone?', priority: '', pointsSpent: 0, sentAt: t(29) } },
  { type: 'AdViewsReset', data: { views: 3, resetBy: 'admin-1', resetAt: t(30) } },
  { type: 'FreePointAwarded', data: { userId: BOB, points: 1, awardedAt: t(31) } },
  { type: 'PriorityChanged', data: { userId: BOB, priority: 'specialUser', changedAt: t(32) } },
  { type: 'CertificateUpdated', data: { ...cert(ANA, 'Ana María', 'Peru', 'ana@example.com', 'Updated greeting'), updatedAt: t(33) } },
  { type: 'MemberPostDeleted', data: { userId: CY, deletedBy: 'admin-1', deletedAt: t(34) } },
  { type: 'PurchaseReversed', data: { userId: CY, captureId: 'c2', reason: 'refunded', amountUsd: 1, points: 79, reversedAt: t(35) } },
];

export function positioned(events: DomainEvent[], firstCommit = 1): PositionedEvent[] {
  return events.map((event, i): PositionedEvent => ({ position: at(firstCommit + i), event }));
}

export const at = (commit: number, prepare = 0): GlobalPosition => ({ commit: BigInt(commit), prepare: BigInt(prepare) });
