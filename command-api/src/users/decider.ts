import {
  ANONYMOUS_NICKNAME,
  NEW_USER_POINTS,
  POINTS_PER_CHAT_MESSAGE,
  POINTS_PER_PASS,
  POINTS_PER_USD,
  SPECIAL_USER_PASSES,
  FREE_POINT_INTERVAL_MS,
  assertNever,
  type DomainEvent,
  type Image,
  type Priority,
  type UserCommand,
} from '@pass/events';
import { eventGuard, type Decider } from '../kernel/decider';
import { DomainError } from '@pass/events';

export const USER_EVENT_TYPES = [
  'UserRegistered',
  'FreePointAwarded',
  'PointsPurchased',
  'PurchaseReversed',
  'PassesClaimed',
  'PriorityChanged',
  'CertificatePosted',
  'CertificateUpdated',
  'ChatMessageSent',
  'MemberPostDeleted',
] as const;
export type UserEvent = Extract<DomainEvent, { type: (typeof USER_EVENT_TYPES)[number] }>;

/**
 * A claim's second step must land within this time of its reservation; the reconciler only
 * releases reservations older than `RECONCILE_AFTER_MS` (passes/reconciler.ts), so a claim is
 * either recorded here or released there, never both.
 */
export const CLAIM_RECORD_DEADLINE_MS = 15_000;

/**
 * The free point rewards an ad watched to the end: /content/check counts 30 s down and asks at
 * 1 s, 29 s after its ad-view ticket was issued. A second of slack covers timers and the trip;
 * a ticket is good for a few minutes (a slow tab), and only once (see AwardFreePoint).
 */
export const AD_VIEW_MIN_MS = 28_000;
export const AD_VIEW_TTL_MS = 5 * 60_000;

/**
 * A chat message sent again with the same request id (its message id derives from it) within
 * the member's last this-many messages is not posted again. The chat limit (5 per 10 s) makes
 * that at least 2 minutes of sending, far beyond a retry after a lost answer (the web retries
 * within its 20 s socket timeout); ids only, so 50,000 cached members stay small.
 */
export const RETRY_WINDOW_MESSAGES = 64;

export interface Certificate {
  fullname: string;
  country: string;
  email: string;
  link: string;
  image: Image;
  message: string;
  postedAt: string;
}

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
  /** Ids of the member's last chat messages (newest last), so a retried send posts nothing new. */
  recentChatMessageIds: readonly string[];
  certificate: Certificate | null;
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
  createdAt: '',
  updatedAt: '',
});

const withAdded = (set: ReadonlySet<string>, value: string) => new Set(set).add(value);
const toCents = (usd: number) => Math.round(usd * 100);
const fromCents = (cents: number) => cents / 100;
/** The points `refundedCents` of a purchase stand for (floored). */
const refundedPoints = (credited: { points: number; amountUsd: number }, refundedCents: number) =>
  Math.floor((refundedCents * credited.points) / toCents(credited.amountUsd));

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
      return {
        ...state,
        points: state.points + event.data.points,
        buyedUsd: state.buyedUsd + event.data.amountUsd,
        creditedCaptures: new Map(state.creditedCaptures).set(event.data.captureId, { points: event.data.points, amountUsd: event.data.amountUsd }),
        updatedAt: event.data.purchasedAt,
      };
    case 'PurchaseReversed': {
      const d = event.data;
      const refunded = fromCents(toCents(state.refundedUsd.get(d.captureId) ?? 0) + toCents(d.amountUsd));
      return {
        ...state,
        points: Math.max(0, state.points - d.points),
        buyedUsd: fromCents(Math.max(0, toCents(state.buyedUsd) - toCents(d.amountUsd))),
        reversedCaptures: d.partial ? state.reversedCaptures : withAdded(state.reversedCaptures, d.captureId),
        refundedUsd: new Map(state.refundedUsd).set(d.captureId, refunded),
        refundIds: d.refundId ? withAdded(state.refundIds, d.refundId) : state.refundIds,
        updatedAt: d.reversedAt,
      };
    }
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
    case 'CertificateUpdated': {
      const d = event.data;
      const at = event.type === 'CertificatePosted' ? event.data.postedAt : event.data.updatedAt;
      return {
        ...state,
        certificate: {
          fullname: d.fullname,
          country: d.country,
          email: d.email,
          link: d.link,
          image: d.image,
          message: d.message,
          postedAt: state.certificate?.postedAt ?? at,
        },
        updatedAt: at,
      };
    }
    case 'ChatMessageSent':
      return {
        ...state,
        points: state.points - event.data.pointsSpent,
        recentChatMessageIds: [...state.recentChatMessageIds.slice(-(RETRY_WINDOW_MESSAGES - 1)), event.data.messageId],
        updatedAt: event.data.sentAt,
      };
    case 'MemberPostDeleted':
      return { ...state, certificate: null, updatedAt: event.data.deletedAt };
    default:
      return assertNever(event);
  }
}

function requireUser(state: UserState): void {
  if (!state.exists) throw new DomainError('not_found', 'This member does not exist');
}

/** Priority after holding `passes`: the first pass makes a normal user, SPECIAL_USER_PASSES a special one. */
export function priorityFor(passes: number, current: Priority): Priority {
  if (passes >= SPECIAL_USER_PASSES) return 'specialUser';
  if (passes > 0 && current === '') return 'normalUser';
  return current;
}

export function decideUser(command: UserCommand, state: UserState): UserEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'RegisterUser': {
      if (state.exists) throw new DomainError('already_exists', 'This member is already registered');
      const { userId, email, passwordHash } = command.data;
      return [
        { type: 'UserRegistered', data: { userId, email, passwordHash, points: NEW_USER_POINTS, priority: '', registeredAt: at } },
      ];
    }
    case 'AwardFreePoint': {
      requireUser(state);
      const started = command.data.adViewStartedAt.getTime();
      const watchedMs = command.now.getTime() - started;
      if (watchedMs < AD_VIEW_MIN_MS) {
        const seconds = Math.ceil((AD_VIEW_MIN_MS - watchedMs) / 1000);
        throw new DomainError('too_soon', `Watch the countdown to the end: your point is ready in ${seconds} seconds`, { retryAfterSeconds: seconds });
      }
      if (watchedMs > AD_VIEW_TTL_MS) {
        throw new DomainError('invalid', 'This free-point countdown has expired: open the free points page again');
      }
      // One ticket, one point: a ticket issued before the last award has been used (or overtaken).
      if (state.lastFreePointAt && started <= Date.parse(state.lastFreePointAt)) {
        throw new DomainError('conflict', 'This countdown already earned its point: open the free points page again');
      }
      if (state.lastFreePointAt) {
        const waitMs = Date.parse(state.lastFreePointAt) + FREE_POINT_INTERVAL_MS - command.now.getTime();
        if (waitMs > 0) {
          const seconds = Math.ceil(waitMs / 1000);
          throw new DomainError('too_soon', `Your next free point is ready in ${seconds} seconds`, { retryAfterSeconds: seconds });
        }
      }
      return [{ type: 'FreePointAwarded', data: { userId: state.userId, points: 1, awardedAt: at } }];
    }
    case 'CreditPurchase': {
      requireUser(state);
      const d = command.data;
      if (state.creditedCaptures.has(d.captureId)) throw new DomainError('already_credited', 'This payment has already been credited');
      if (d.points !== Math.round(d.amountUsd * POINTS_PER_USD)) {
        throw new DomainError('invalid', `A payment of ${d.amountUsd} USD buys ${Math.round(d.amountUsd * POINTS_PER_USD)} points`);
      }
      return [
        {
          type: 'PointsPurchased',
          data: {
            userId: state.userId,
            provider: d.provider,
            orderId: d.orderId,
            captureId: d.captureId,
            amountUsd: d.amountUsd,
            points: d.points,
            purchasedAt: at,
          },
        },
      ];
    }
    case 'ReversePurchase': {
      requireUser(state);
      const { captureId, reason } = command.data;
      const credited = state.creditedCaptures.get(captureId);
      if (!credited) throw new DomainError('not_found', 'No purchase with this capture was credited');
      // Webhooks are delivered more than once; the second delivery changes nothing.
      if (state.reversedCaptures.has(captureId)) return [];
      // What partial refunds have not already taken back.
      const refunded = toCents(state.refundedUsd.get(captureId) ?? 0);
      return [
        {
          type: 'PurchaseReversed',
          data: {
            userId: state.userId,
            captureId,
            reason,
            amountUsd: fromCents(toCents(credited.amountUsd) - refunded),
            // Points already spent on passes or messages stay spent: the balance never goes below 0.
            points: Math.min(credited.points - refundedPoints(credited, refunded), state.points),
            reversedAt: at,
          },
        },
      ];
    }
    case 'RefundPurchase': {
      requireUser(state);
      const { captureId, refundId, amountUsd } = command.data;
      const credited = state.creditedCaptures.get(captureId);
      if (!credited) throw new DomainError('not_found', 'No purchase with this capture was credited');
      // A redelivered refund, or one after the purchase was reversed in full: nothing more to take.
      if (state.refundIds.has(refundId) || state.reversedCaptures.has(captureId)) return [];
      const paid = toCents(credited.amountUsd);
      const before = toCents(state.refundedUsd.get(captureId) ?? 0);
      const after = Math.min(paid, before + toCents(amountUsd));
      const partial = after < paid;
      // Proportional to the dollars refunded, counted on the running total so rounding never adds
      // up; floored, so a refund never takes more than its share. Spent points stay spent.
      const due = refundedPoints(credited, after) - refundedPoints(credited, before);
      return [
        {
          type: 'PurchaseReversed',
          data: {
            userId: state.userId,
            captureId,
            reason: 'refunded',
            amountUsd: fromCents(after - before),
            points: Math.min(due, state.points),
            reversedAt: at,
            partial,
            refundId,
            refundedUsd: fromCents(after),
          },
        },
      ];
    }
    case 'RecordPassesClaim': {
      requireUser(state);
      const { reservationId, passes, reservedAt } = command.data;
      // Recording twice (a retry, or the reconciler racing a slow request) changes nothing.
      if (state.claimedReservations.has(reservationId)) return [];
      if (command.now.getTime() - Date.parse(reservedAt) > CLAIM_RECORD_DEADLINE_MS) {
        throw new DomainError('reservation_expired', 'Your claim took too long, please try again');
      }
      const cost = passes * POINTS_PER_PASS;
      if (state.points < cost) {
        throw new DomainError('insufficient_points', `You need ${cost} points for ${passes} passes and have ${state.points}`, {
          fields: { passes: `You can get at most ${Math.floor(state.points / POINTS_PER_PASS)} passes` },
        });
      }
      const events: UserEvent[] = [
        { type: 'PassesClaimed', data: { userId: state.userId, reservationId, passes, pointsSpent: cost, claimedAt: at } },
      ];
      const priority = priorityFor(state.passes + passes, state.priority);
      if (priority !== state.priority) events.push({ type: 'PriorityChanged', data: { userId: state.userId, priority, changedAt: at } });
      return events;
    }
    case 'PostCertificate': {
      requireUser(state);
      const d = command.data;
      if (d.email.trim().toLowerCase() !== state.email.trim().toLowerCase()) {
        throw new DomainError('invalid', 'Your email must match the one registered', {
          fields: { email: 'Your email must match the one registered' },
        });
      }
      const image = d.image ?? state.certificate?.image;
      if (!image) throw new DomainError('invalid', 'Please select an image.', { fields: { image: 'Please select an image.' } });
      const certificate = { userId: state.userId, fullname: d.fullname, country: d.country, email: state.email, link: d.link, image, message: d.message };
      return state.certificate
        ? [{ type: 'CertificateUpdated', data: { ...certificate, updatedAt: at } }]
        : [{ type: 'CertificatePosted', data: { ...certificate, postedAt: at } }];
    }
    case 'SendChatMessage': {
      requireUser(state);
      // A retry (same request id, so same message id): posted once, nothing to spend again.
      if (state.recentChatMessageIds.includes(command.data.messageId)) return [];
      if (state.points < POINTS_PER_CHAT_MESSAGE) {
        throw new DomainError('insufficient_points', 'You have no points left: get free points to keep chatting');
      }
      return [
        {
          type: 'ChatMessageSent',
          data: {
            userId: state.userId,
            messageId: command.data.messageId,
            nickname: state.certificate?.fullname || ANONYMOUS_NICKNAME,
            message: command.data.message,
            priority: state.priority,
            pointsSpent: POINTS_PER_CHAT_MESSAGE,
            sentAt: at,
          },
        },
      ];
    }
    case 'DeleteMemberPost': {
      requireUser(state);
      if (!state.certificate) throw new DomainError('not_found', 'This member has no post');
      return [{ type: 'MemberPostDeleted', data: { userId: state.userId, deletedBy: command.data.deletedBy, deletedAt: at } }];
    }
    default:
      return assertNever(command);
  }
}

export const userDecider: Decider<UserCommand, UserState, UserEvent> = {
  name: 'user',
  initialState: initialUserState,
  isEvent: eventGuard(USER_EVENT_TYPES),
  evolve: evolveUser,
  decide: decideUser,
};
