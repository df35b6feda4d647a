import { describe, expect, it } from 'vitest';
import type { UserEvent } from '@pass/events';
import { userDecider } from '../members/decider';
import { claimed, memberSpec as spec, purchased, registered, t0, userId } from '../test-support/member-events';

describe('user: buy points', () => {
  const credit = (captureId: string, amountUsd = 5, points = 500) =>
    ({ type: 'CreditPurchase', data: { userId, provider: 'simulated', orderId: `o-${captureId}`, captureId, amountUsd, points }, now: t0 }) as const;
  it('credits a verified capture and counts the dollars bought', () => {
    spec.given([registered]).when(credit('cap-1')).thenState((state) => {
      expect(state.points).toBe(510);
      expect(state.buyedUsd).toBe(5);
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
    spec.given([registered, purchased(100), claimed(5)]).when(reverse()).thenState((state) => {
      expect(state.points).toBe(0);
      expect(state.buyedUsd).toBe(0);
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
    spec.given([registered, purchased(100)]).when(refund('R1', 0.4)).thenState((state) => {
      expect(state.points).toBe(70);
      expect(state.buyedUsd).toBe(0.6);
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
    spec.given([registered, purchased(100), claimed(5)]).when(refund('R1', 0.5)).thenState((state) => expect(state.points).toBe(0));
  });
  it('refuses a capture that was never credited', () => {
    spec.given([registered]).when(refund('R1', 1, 'cap-x')).thenThrows('not_found');
  });
});
