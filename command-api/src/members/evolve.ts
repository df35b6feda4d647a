import { assertNever, fromCents, toCents, type EventData, type UserEvent } from '@pass/events';
import { RETRY_WINDOW_MESSAGES, type UserState } from './state';

const withAdded = (set: ReadonlySet<string>, value: string) => new Set(set).add(value);

/** Folds one event of the member's stream into their state. Pure: every time comes from the event. */
export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered': {
      const d = event.data;
      return {
        ...state,
        exists: true,
        userId: d.userId,
        email: d.email,
        passwordHash: d.passwordHash,
        points: d.points,
        priority: d.priority,
        createdAt: d.registeredAt,
        updatedAt: d.registeredAt,
      };
    }
    case 'FreePointAwarded':
      return { ...state, points: state.points + event.data.points, lastFreePointAt: event.data.awardedAt, updatedAt: event.data.awardedAt };
    case 'PointsPurchased':
      return purchased(state, event.data);
    case 'PurchaseReversed':
      return reversed(state, event.data);
    case 'PassesClaimed':
      return {
        ...state,
        points: state.points - event.data.pointsSpent,
        passes: state.passes + event.data.passes,
        claimedReservations: withAdded(state.claimedReservations, event.data.reservationId),
        updatedAt: event.data.claimedAt,
      };
    case 'PriorityChanged':
      return { ...state, priority: event.data.priority, updatedAt: event.data.changedAt };
    case 'CertificatePosted':
      return certified(state, event.data, event.data.postedAt);
    case 'CertificateUpdated':
      return certified(state, event.data, event.data.updatedAt);
    case 'ChatMessageSent':
      return {
        ...state,
        points: state.points - event.data.pointsSpent,
        recentChatMessageIds: [...state.recentChatMessageIds.slice(-(RETRY_WINDOW_MESSAGES - 1)), event.data.messageId],
        updatedAt: event.data.sentAt,
      };
    case 'MemberPostDeleted':
      return { ...state, certificate: null, updatedAt: event.data.deletedAt };
    case 'PasswordChanged':
      // A new password ends every reset link asked for before it, used or not.
      return { ...state, passwordHash: event.data.passwordHash, pendingResets: new Map(), passwordChangedAt: event.data.changedAt };
    case 'PasswordResetRequested':
      return { ...state, pendingResets: new Map(state.pendingResets).set(event.data.tokenHash, event.data.expiresAt) };
    case 'MemberErased':
      // No account any more: no sign-in, no command. Balances stay in the events (totals keep them).
      return { ...state, exists: false, erased: true, email: '', passwordHash: '', certificate: null, pendingResets: new Map(), updatedAt: event.data.erasedAt };
    default:
      return assertNever(event);
  }
}

function purchased(state: UserState, d: EventData<'PointsPurchased'>): UserState {
  return {
    ...state,
    points: state.points + d.points,
    buyedUsd: state.buyedUsd + d.amountUsd,
    creditedCaptures: new Map(state.creditedCaptures).set(d.captureId, { points: d.points, amountUsd: d.amountUsd }),
    updatedAt: d.purchasedAt,
  };
}

function reversed(state: UserState, d: EventData<'PurchaseReversed'>): UserState {
  const refunded = fromCents(toCents(state.refundedUsd.get(d.captureId) ?? 0) + toCents(d.amountUsd));
  return {
    ...state,
    points: Math.max(0, state.points - d.points),
    buyedUsd: fromCents(Math.max(0, toCents(state.buyedUsd) - toCents(d.amountUsd))),
    // A partial refund leaves the capture open to further refunds or a chargeback.
    reversedCaptures: d.partial ? state.reversedCaptures : withAdded(state.reversedCaptures, d.captureId),
    refundedUsd: new Map(state.refundedUsd).set(d.captureId, refunded),
    refundIds: d.refundId ? withAdded(state.refundIds, d.refundId) : state.refundIds,
    updatedAt: d.reversedAt,
  };
}

/** A posted or updated card; the first post's time stays its `postedAt`. */
function certified(state: UserState, d: EventData<'CertificatePosted'> | EventData<'CertificateUpdated'>, at: string): UserState {
  const { fullname, country, email, link, image, message } = d;
  return {
    ...state,
    certificate: { fullname, country, email, link, image, message, postedAt: state.certificate?.postedAt ?? at },
    updatedAt: at,
  };
}
