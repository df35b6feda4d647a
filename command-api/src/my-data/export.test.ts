import type { RecordedEvent, UserEvent } from '@pass/events';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../sessions/session-store';
import { claimed, image, purchased, registered, t0, userId } from '../test-support/member-events';
import { myDataExport } from './export';

const recorded = (events: UserEvent[]): RecordedEvent[] =>
  events.map((event, revision) => ({
    id: `e${revision}`,
    streamId: `user-${userId}`,
    revision,
    position: { commit: BigInt(revision), prepare: 0n },
    type: event.type,
    data: event.data,
    metadata: { occurredAt: t0.toISOString(), correlationId: `c${revision}`, actor: { type: 'user', id: userId } },
    recordedAt: t0,
  }));
const principal = { kind: 'user' as const, id: userId, sessionId: 's2', expiresAt: new Date(t0.getTime() + 86_400_000) };
const session = (id: string, lastSeenAt?: string): SessionRecord => ({ id, kind: 'user', subjectId: userId, createdAt: t0.toISOString(), expiresAt: '2026-01-02T10:00:00.000Z', ...(lastSeenAt ? { lastSeenAt } : {}) });

describe("a member's data export", () => {
  const at = t0.toISOString();
  const events: UserEvent[] = [
    registered,
    purchased(100, 'cap-1'),
    { type: 'PurchaseReversed', data: { userId, captureId: 'cap-1', reason: 'refunded', amountUsd: 0.25, points: 25, reversedAt: at, partial: true, refundId: 'r1', refundedUsd: 0.25 } },
    claimed(2),
    { type: 'CertificatePosted', data: { userId, fullname: 'Ana', country: 'Spain', email: 'ana@example.com', link: 'https://ana.example.com', image, message: 'Hi', postedAt: at } },
    { type: 'PasswordChanged', data: { userId, passwordHash: '$argon2id$secret', via: 'change', changedAt: at } },
  ];
  const data = myDataExport(recorded(events), [session('s1', at), session('s2')], principal, 'https://pass.example', t0);

  it('holds the account, the balance, the card with its absolute image URL, purchases, refunds and passes', () => {
    expect(data.account).toEqual({ id: userId, email: 'ana@example.com', priority: '', createdAt: at, updatedAt: at, passwordChangedAt: at });
    expect(data.balance).toEqual({ points: 10 + 100 - 25 - 40, passes: 2, boughtUsd: 0.75 });
    expect(data.card).toMatchObject({ fullname: 'Ana', imageUrl: `https://pass.example${image.url}`, postedAt: at });
    expect(data.purchases).toEqual([{ provider: 'simulated', orderId: 'o-cap-1', captureId: 'cap-1', amountUsd: 1, points: 100, purchasedAt: at }]);
    expect(data.refunds).toEqual([{ captureId: 'cap-1', reason: 'refunded', amountUsd: 0.25, points: 25, partial: true, reversedAt: at }]);
    expect(data.passes).toEqual([{ passes: 2, pointsSpent: 40, claimedAt: at }]);
  });

  it("shows the point history as the admin's timeline, running totals included", () => {
    expect(data.pointHistory.map((e) => [e.type, e.points, e.passes])).toEqual([
      ['UserRegistered', 10, 0],
      ['PointsPurchased', 110, 0],
      ['PurchaseReversed', 85, 0],
      ['PassesClaimed', 45, 2],
      ['CertificatePosted', 45, 2],
      ['PasswordChanged', 45, 2],
    ]);
  });

  it('lists sessions without their ids, marking the one that asked, and no password hash', () => {
    expect(data.sessions).toEqual([
      { createdAt: at, lastSeenAt: at, expiresAt: '2026-01-02T10:00:00.000Z', current: false },
      { createdAt: at, lastSeenAt: null, expiresAt: '2026-01-02T10:00:00.000Z', current: true },
    ]);
    const text = JSON.stringify(data);
    expect(text).not.toContain('argon2');
    expect(text).not.toContain('"s1"');
  });
});
