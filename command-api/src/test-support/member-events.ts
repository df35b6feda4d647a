import type { Image, UserEvent } from '@pass/events';
import { deciderSpec } from '../kernel/decider-spec';
import { userDecider } from '../members/decider';

/** Given/when/then on the member aggregate, and the events its specs start from. */
export const memberSpec = deciderSpec(userDecider);

export const t0 = new Date('2026-01-01T10:00:00.000Z');
export const at = (ms: number) => new Date(t0.getTime() + ms);
export const userId = 'u1';
export const image: Image = { path: 'ab/abc.webp', public_id: 'abc', url: '/uploads/ab/abc.webp' };

export const registered: UserEvent = {
  type: 'UserRegistered',
  data: { userId, email: 'ana@example.com', passwordHash: 'h', points: 10, priority: '', registeredAt: t0.toISOString() },
};
export const purchased = (points: number, captureId = 'cap-1'): UserEvent => ({
  type: 'PointsPurchased',
  data: { userId, provider: 'simulated', orderId: `o-${captureId}`, captureId, amountUsd: points / 100, points, purchasedAt: t0.toISOString() },
});
export const claimed = (passes: number, reservationId = 'r0'): UserEvent => ({
  type: 'PassesClaimed',
  data: { userId, reservationId, passes, pointsSpent: passes * 20, claimedAt: t0.toISOString() },
});

/** A PostCertificate command; `image: undefined` keeps the current one. */
export const postCertificate = (data: Partial<{ email: string; image: Image | undefined; fullname: string }> = {}) =>
  ({
    type: 'PostCertificate',
    data: { userId, fullname: data.fullname ?? 'Ana', country: 'Spain', email: data.email ?? 'ANA@example.com', link: 'https://ana.example.com', image: 'image' in data ? data.image : image, message: 'Hello all' },
    now: t0,
  }) as const;
