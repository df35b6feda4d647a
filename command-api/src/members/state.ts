import { DomainError, type Image, type Priority } from '@pass/events';

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

/** Every member command but registration needs a registered member. */
export function requireRegistered(state: UserState): void {
  if (!state.exists) throw new DomainError('not_found', 'This member does not exist');
}
