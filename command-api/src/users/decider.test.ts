import { describe, expect, it } from 'vitest';
import type { Image } from '@pass/events';
import { deciderSpec } from '../kernel/decider-spec';
import { AD_VIEW_MIN_MS, AD_VIEW_TTL_MS, CLAIM_RECORD_DEADLINE_MS, RETRY_WINDOW_MESSAGES, userDecider, type UserEvent } from './decider';

const spec = deciderSpec(userDecider);
const t0 = new Date('2026-01-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const userId = 'u1';
const image: Image = { path: 'ab/abc.webp', public_id: 'abc', url: '/uploads/ab/abc.webp' };

const registered: UserEvent = {
  type: 'UserRegistered',
  data: { userId, email: 'ana@example.com', passwordHash: 'h', points: 10, priority: '', registeredAt: t0.toISOString() },
};
const purchased = (points: number, captureId = 'cap-1'): UserEvent => ({
  type: 'PointsPurchased',
  data: { userId, provider: 'simulated', orderId: `o-${captureId}`, captureId, amountUsd: points / 100, points, purchasedAt: t0.toISOString() },
});
const claimed = (passes: number, reservationId = 'r0'): UserEvent => ({
  type: 'PassesClaimed',
  data: { userId, reservationId, passes, pointsSpent: passes * 20, claimedAt: t0.toISOString() },
});

describe('user: register', () => {
  it('starts a new member with 10 points and no priority', () => {
    spec.given([]).when({ type: 'RegisterUser', data: { userId, email: 'ana@example.com', passwordHash: 'h' }, now: t0 }).then([registered]);
  });
  it('refuses to register the same member twice', () => {
    spec.given([registered]).when({ type: 'RegisterUser', data: { userId, email: 'ana@example.com', passwordHash: 'h' }, now: t0 }).thenThrows('already_exists');
  });
});

describe('user: free point', () => {
  // The ad view (its ticket) started `watchedMs` before `now`.
  const award = (nowMs: number, watchedMs = 29_000) =>
    ({ type: 'AwardFreePoint', data: { userId, adViewStartedAt: at(nowMs - watchedMs) }, now: at(nowMs) }) as const;
  it('awards one point for an ad watched to the end of the countdown', () => {
    spec.given([registered]).when(award(40_000)).then([
      { type: 'FreePointAwarded', data: { userId, points: 1, awardedAt: at(40_000).toISOString() } },
    ]);
  });
  it('accepts the point from 28 s after the countdown started (a second of slack before its 29 s)', () => {
    spec.given([registered]).when(award(40_000, AD_VIEW_MIN_MS)).thenState((s) => expect(s.points).toBe(11));
  });
  it('refuses a point asked before the countdown ran, saying how long is left', () => {
    const error = spec.given([registered]).when(award(40_000, 5_000)).thenThrows('too_soon', /Watch the countdown to the end: your point is ready in 23 seconds/);
    expect(error.details.retryAfterSeconds).toBe(23);
  });
  it('refuses a ticket from the future (never watched)', () => {
    spec.given([registered]).when(award(40_000, -60_000)).thenThrows('too_soon');
  });
  it('refuses a countdown older than a few minutes', () => {
    spec.given([registered]).when(award(400_000, AD_VIEW_TTL_MS + 1)).thenThrows('invalid', /expired/);
  });
  const first: UserEvent = { type: 'FreePointAwarded', data: { userId, points: 1, awardedAt: at(0).toISOString() } };
  it('refuses a second point within 30 seconds, saying how long to wait', () => {
    const error = spec.given([registered, first]).when(award(29_500, 29_000)).thenThrows('too_soon', /1 seconds/);
    expect(error.details.retryAfterSeconds).toBe(1);
  });
  it('refuses a ticket issued before the last point: one countdown, one point', () => {
    // Issued 10 s before the first award, shown again 60 s later.
    spec.given([registered, first]).when(award(60_000, 70_000)).thenThrows('conflict', /already earned its point/);
  });
  it('awards again for a new countdown started after the last point', () => {
    spec.given([registered, first]).when(award(60_000, 29_000)).thenState((s) => expect(s.points).toBe(12));
  });
  it('refuses an unknown member', () => {
    spec.given([]).when(award(40_000)).thenThrows('not_found');
  });
});

describe('user: buy points', () => {
  const credit = (captureId: string, amountUsd = 5, points = 500) =>
    ({ type: 'CreditPurchase', data: { userId, provider: 'simulated', orderId: `o-${captureId}`, captureId, amountUsd, points }, now: t0 }) as const;
  it('credits a verified capture and counts the dollars bought', () => {
    spec.given([registered]).when(credit('cap-1')).thenState((s) => {
      expect(s.points).toBe(510);
      expect(s.buyedUsd).toBe(5);
    });
  });
  it('credits each capture id once', () => {
    spec.given([registered, purchased(500, 'cap-1')]).when(credit('cap-1')).thenThrows('already_credited');
  });
  it('refuses points that do not match the price (1 USD = 100 points)', () => {
    spec.given([registered]).when(credit('cap-2', 5, 5000)).thenThrows('invalid');
  });
});

const reverse = (captureId = 'cap-1') => ({ type: 'ReversePurchase', data: { userId, captureId, reason: 'refunded' }, now: t0 }) as const;

describe('user: purchase reversed (refund webhook)', () => {
  it('takes the points back, but never below zero', () => {
    spec.given([registered, purchased(100)]).when(reverse()).then([
      { type: 'PurchaseReversed', data: { userId, captureId: 'cap-1', reason: 'refunded', amountUsd: 1, points: 100, reversedAt: t0.toISOString() } },
    ]);
    spec.given([registered, purchased(100), claimed(5)]).when(reverse()).thenState((s) => {
      expect(s.points).toBe(0);
      expect(s.buyedUsd).toBe(0);
    });
  });
  it('reverses a capture once, and only a credited one', () => {
    const reversed = userDecider.decide(reverse(), [registered, purchased(100)].reduce(userDecider.evolve, userDecider.initialState()));
    spec.given([registered, purchased(100), ...reversed]).when(reverse()).then([]);
    spec.given([registered]).when(reverse('cap-x')).thenThrows('not_found');
  });
});

describe('user: purchase refunded in part (refund webhook with an amount)', () => {
  const refund = (refundId: string, amountUsd: number, captureId = 'cap-1') =>
    ({ type: 'RefundPurchase', data: { userId, captureId, refundId, amountUsd }, now: t0 }) as const;
  /** Events after `events` and then `commands`, decided one after another. */
  const after = (events: UserEvent[], ...commands: Parameters<typeof userDecider.decide>[0][]) => {
    const out = [...events];
    for (const c of commands) out.push(...userDecider.decide(c, out.reduce(userDecider.evolve, userDecider.initialState())));
    return out;
  };
  const reversedData = (e: UserEvent) => (e.type === 'PurchaseReversed' ? e.data : undefined);

  it('takes back the points the refunded dollars bought, and says it is partial', () => {
    spec.given([registered, purchased(100)]).when(refund('R1', 0.4)).then([
      {
        type: 'PurchaseReversed',
        data: { userId, captureId: 'cap-1', reason: 'refunded', amountUsd: 0.4, points: 40, reversedAt: t0.toISOString(), partial: true, refundId: 'R1', refundedUsd: 0.4 },
      },
    ]);
    spec.given([registered, purchased(100)]).when(refund('R1', 0.4)).thenState((s) => {
      expect(s.points).toBe(70);
      expect(s.buyedUsd).toBe(0.6);
    });
  });
  it('counts each refund once (webhook redeliveries)', () => {
    spec.given(after([registered, purchased(100)], refund('R1', 0.4))).when(refund('R1', 0.4)).then([]);
  });
  it('floors on the running total, so refunds in thirds take 33, 33 and 34 of 100 points', () => {
    const events = after([registered, purchased(100)], refund('R1', 0.33), refund('R2', 0.33), refund('R3', 0.34));
    expect(events.slice(2).map((e) => reversedData(e)?.points)).toEqual([33, 33, 34]);
    expect(events.slice(2).map((e) => reversedData(e)?.partial)).toEqual([true, true, false]);
    spec.given(events).when(refund('R4', 0.1)).then([]);
    spec.given(events).when({ type: 'ReversePurchase', data: { userId, captureId: 'cap-1', reason: 'reversed' }, now: t0 }).then([]);
  });
  it('the refund that completes the price reverses the purchase; more than the price is capped', () => {
    const events = after([registered, purchased(500, 'cap-5')], refund('R1', 1, 'cap-5'));
    spec.given(events).when(refund('R2', 9, 'cap-5')).then([
      {
        type: 'PurchaseReversed',
        data: { userId, captureId: 'cap-5', reason: 'refunded', amountUsd: 4, points: 400, reversedAt: t0.toISOString(), partial: false, refundId: 'R2', refundedUsd: 5 },
      },
    ]);
  });
  it('a chargeback after a partial refund takes back only the rest', () => {
    spec.given(after([registered, purchased(100)], refund('R1', 0.25))).when(reverse()).then([
      { type: 'PurchaseReversed', data: { userId, captureId: 'cap-1', reason: 'refunded', amountUsd: 0.75, points: 75, reversedAt: t0.toISOString() } },
    ]);
  });
  it('never takes the balance below zero (points already spent stay spent)', () => {
    // 10 + 100 points, 100 spent on 5 passes: 10 left; a refund of half would take 50.
    spec.given([registered, purchased(100), claimed(5)]).when(refund('R1', 0.5)).thenState((s) => expect(s.points).toBe(0));
  });
  it('refuses a capture that was never credited', () => {
    spec.given([registered]).when(refund('R1', 1, 'cap-x')).thenThrows('not_found');
  });
});

describe('user: record a pass claim', () => {
  const record = (passes: number, reservationId = 'r1', now = at(1000)) =>
    ({ type: 'RecordPassesClaim', data: { userId, reservationId, passes, reservedAt: t0.toISOString() }, now }) as const;

  it('spends 20 points per pass and makes a first claim a normal user', () => {
    spec.given([registered, purchased(100)]).when(record(2)).then([
      { type: 'PassesClaimed', data: { userId, reservationId: 'r1', passes: 2, pointsSpent: 40, claimedAt: at(1000).toISOString() } },
      { type: 'PriorityChanged', data: { userId, priority: 'normalUser', changedAt: at(1000).toISOString() } },
    ]);
  });
  it('makes a member holding 10 passes a special user', () => {
    spec.given([registered, purchased(1000), claimed(9)]).when(record(1)).thenState((s) => {
      expect(s.passes).toBe(10);
      expect(s.priority).toBe('specialUser');
      expect(s.points).toBe(1010 - 200);
    });
  });
  it('does not change the priority of a normal user claiming again below 10', () => {
    const events = userDecider.decide(record(1), [registered, purchased(100), claimed(1), { type: 'PriorityChanged', data: { userId, priority: 'normalUser', changedAt: t0.toISOString() } } as UserEvent].reduce(userDecider.evolve, userDecider.initialState()));
    expect(events.map((e) => e.type)).toEqual(['PassesClaimed']);
  });
  it('never lets points go below zero', () => {
    spec.given([registered]).when(record(1)).thenThrows('insufficient_points', /need 20 points/);
  });
  it('records one reservation once', () => {
    spec.given([registered, purchased(100), claimed(1, 'r1')]).when(record(1, 'r1')).then([]);
  });
  it('refuses to record a reservation older than the deadline (the reconciler releases it)', () => {
    spec.given([registered, purchased(100)]).when(record(1, 'r1', at(CLAIM_RECORD_DEADLINE_MS + 1))).thenThrows('reservation_expired');
  });
});

describe('user: certificate', () => {
  const post = (data: Partial<{ email: string; image: Image | undefined; fullname: string }> = {}) =>
    ({
      type: 'PostCertificate',
      data: { userId, fullname: data.fullname ?? 'Ana', country: 'Spain', email: data.email ?? 'ANA@example.com', link: 'https://ana.example.com', image: 'image' in data ? data.image : image, message: 'Hello all' },
      now: t0,
    }) as const;
  it('posts a first certificate', () => {
    spec.given([registered]).when(post()).then([
      { type: 'CertificatePosted', data: { userId, fullname: 'Ana', country: 'Spain', email: 'ana@example.com', link: 'https://ana.example.com', image, message: 'Hello all', postedAt: t0.toISOString() } },
    ]);
  });
  it('updates an existing one, keeping the image when none is sent', () => {
    const first = userDecider.decide(post(), userDecider.evolve(userDecider.initialState(), registered));
    spec.given([registered, ...first]).when(post({ fullname: 'Ana B', image: undefined })).thenState((s) => {
      expect(s.certificate).toMatchObject({ fullname: 'Ana B', image });
    });
  });
  it('refuses an email other than the registered one', () => {
    const error = spec.given([registered]).when(post({ email: 'other@example.com' })).thenThrows('invalid');
    expect(error.details.fields).toEqual({ email: 'Your email must match the one registered' });
  });
  it('refuses a first post without an image', () => {
    spec.given([registered]).when(post({ image: undefined })).thenThrows('invalid', /Please select an image\./);
  });
  it('lets the admin delete a post, and refuses deleting a post that is not there', () => {
    const posted = userDecider.decide(post(), userDecider.evolve(userDecider.initialState(), registered));
    spec.given([registered, ...posted]).when({ type: 'DeleteMemberPost', data: { userId, deletedBy: 'admin-1' }, now: t0 }).thenState((s) => expect(s.certificate).toBeNull());
    spec.given([registered]).when({ type: 'DeleteMemberPost', data: { userId, deletedBy: 'admin-1' }, now: t0 }).thenThrows('not_found');
  });
});

describe('user: chat', () => {
  const send = { type: 'SendChatMessage', data: { userId, messageId: 'm1', message: 'hola' }, now: t0 } as const;
  it('spends one point and carries the text, as Anonymous before a certificate', () => {
    spec.given([registered]).when(send).then([
      { type: 'ChatMessageSent', data: { userId, messageId: 'm1', nickname: 'Anonymous', message: 'hola', priority: '', pointsSpent: 1, sentAt: t0.toISOString() } },
    ]);
  });
  it('refuses a message with no points left', () => {
    spec.given([registered, purchased(90), claimed(5)]).when(send).thenThrows('insufficient_points');
  });
  const sentAs = (messageId: string, pointsSpent = 1): UserEvent => ({
    type: 'ChatMessageSent',
    data: { userId, messageId, nickname: 'Anonymous', message: 'hola', priority: '', pointsSpent, sentAt: t0.toISOString() },
  });
  it('posts a retry (the same message id) once: nothing new, no point spent again', () => {
    spec.given([registered, sentAs('m1')]).when(send).then([]);
  });
  it('answers a retry even when the first send spent the last point', () => {
    spec.given([registered, purchased(90), claimed(5), sentAs('m0')]).when({ ...send, data: { ...send.data, messageId: 'm0' } }).then([]);
  });
  it('remembers the last RETRY_WINDOW_MESSAGES message ids, not more', () => {
    const many = Array.from({ length: RETRY_WINDOW_MESSAGES }, (_, i) => sentAs(`x${i}`, 0));
    spec.given([registered, sentAs('m1'), ...many]).when(send).thenState((s) => {
      expect(s.recentChatMessageIds).toHaveLength(RETRY_WINDOW_MESSAGES);
      expect(s.points).toBe(8);
    });
    spec.given([registered, sentAs('m1'), ...many.slice(1)]).when(send).then([]);
  });
});
