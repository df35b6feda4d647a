import { assertNever, type EventData, type Image, type Priority } from '../domain-events';
import type { UserEvent } from '../stream-events';
import { fromCents, toCents } from './site';

/**
 * The member aggregate's state and its fold, in the kernel so that the command side's decide
 * steps and the admin's story of a member (point-history.ts) read the one same fold. Pure and
 * browser-safe; the decide steps stay in command-api/src (members/decider.ts dispatches).
 */

export interface Certificate {
  fullname: string;
  country: string;
  email: string;
  link: string;
  image: Image;
  message: string;
  postedAt: string;
}

/**
 * A chat message sent again with the same request id (its message id derives from it) within
 * the member's last this-many messages is not posted again. The chat limit (5 per 10 s) makes
 * that at least 2 minutes of sending, far beyond a retry after a lost answer (the web retries
 * within its 20 s socket timeout); ids only, so the cached members stay small.
 */
export const RETRY_WINDOW_MESSAGES = 64;

/** What the member aggregate decides on: one `user-{id}` stream folded by `evolveUser`. */
export interface UserState {
  exists: boolean;
  userId: string;
  email: string;
  passwordHash: string;
  /** The spec's chatCount. Never negative. */
  points: number;
  passes: number;
  priority: Priority;
  /** Total USD bought (the spec's `buyed`). */
  buyedUsd: number;
  lastFreePointAt: string | null;
  /** Points credited per capture id (a reversal takes back at most these). */
  creditedCaptures: ReadonlyMap<string, { points: number; amountUsd: number }>;
  reversedCaptures: ReadonlySet<string>;
  /** USD refunded so far per capture (partial refunds), and the refunds already recorded. */
  refundedUsd: ReadonlyMap<string, number>;
  refundIds: ReadonlySet<string>;
  claimedReservations: ReadonlySet<string>;
  /** Ids of the member's last RETRY_WINDOW_MESSAGES chat messages (newest last), so a retried send posts nothing new. */
  recentChatMessageIds: readonly string[];
  certificate: Certificate | null;
  passwordChangedAt: string | null;
  /** MemberErased: no account any more (`exists` false), and the member id never registers again. */
  erased: boolean;
  createdAt: string;
  updatedAt: string;
}

export const initialUserState = (): UserState => ({
  exists: false,
  userId: '',
  email: '',
  passwordHash: '',
  points: 0,
  passes: 0,
  priority: '',
  buyedUsd: 0,
  lastFreePointAt: null,
  creditedCaptures: new Map(),
  reversedCaptures: new Set(),
  refundedUsd: new Map(),
  refundIds: new Set(),
  claimedReservations: new Set(),
  recentChatMessageIds: [],
  certificate: null,
  passwordChangedAt: null,
  erased: false,
  createdAt: '',
  updatedAt: '',
});

const withAdded = (set: ReadonlySet<string>, value: string) => new Set(set).add(value);

/** Folds one event of the member's stream into their state. Pure: every time comes from the event. */
export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered': {
      const data = event.data;
      return {
        ...state,
        exists: true,
        userId: data.userId,
        email: data.email,
        passwordHash: data.passwordHash,
        points: data.points,
        priority: data.priority,
        createdAt: data.registeredAt,
        updatedAt: data.registeredAt,
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
      // A new password ends every reset link made before it, used or not (resetLinkHolds).
      return { ...state, passwordHash: event.data.passwordHash, passwordChangedAt: event.data.changedAt };
    case 'PasswordResetRequested':
      // History only: a reset link proves itself by its signature.
      return state;
    case 'MemberErased':
      // No account any more: no sign-in, no command. Balances stay in the events (totals keep them).
      return { ...state, exists: false, erased: true, email: '', passwordHash: '', certificate: null, updatedAt: event.data.erasedAt };
    default:
      return assertNever(event);
  }
}

function purchased(state: UserState, data: EventData<'PointsPurchased'>): UserState {
  return {
    ...state,
    points: state.points + data.points,
    buyedUsd: state.buyedUsd + data.amountUsd,
    creditedCaptures: new Map(state.creditedCaptures).set(data.captureId, { points: data.points, amountUsd: data.amountUsd }),
    updatedAt: data.purchasedAt,
  };
}

function reversed(state: UserState, data: EventData<'PurchaseReversed'>): UserState {
  const refunded = fromCents(toCents(state.refundedUsd.get(data.captureId) ?? 0) + toCents(data.amountUsd));
  return {
    ...state,
    points: Math.max(0, state.points - data.points),
    buyedUsd: fromCents(Math.max(0, toCents(state.buyedUsd) - toCents(data.amountUsd))),
    // A partial refund leaves the capture open to further refunds or a chargeback.
    reversedCaptures: data.partial ? state.reversedCaptures : withAdded(state.reversedCaptures, data.captureId),
    refundedUsd: new Map(state.refundedUsd).set(data.captureId, refunded),
    refundIds: data.refundId ? withAdded(state.refundIds, data.refundId) : state.refundIds,
    updatedAt: data.reversedAt,
  };
}

/** A posted or updated card; the first post's time stays its `postedAt`. */
function certified(state: UserState, data: EventData<'CertificatePosted'> | EventData<'CertificateUpdated'>, at: string): UserState {
  const { fullname, country, email, link, image, message } = data;
  return {
    ...state,
    certificate: { fullname, country, email, link, image, message, postedAt: state.certificate?.postedAt ?? at },
    updatedAt: at,
  };
}
