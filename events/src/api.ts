/**
 * The wire contract between web/, command-api and query-api: JSON bodies of every route and
 * the payloads of every Socket.IO event. Browser-safe, types only. Routes are relative to the
 * one origin (standalone: http://localhost:3000). All calls send credentials (session cookie).
 */
import type { EventData, Priority, Image } from './domain-events';

/** Every 4xx/5xx answer. `fields` maps a form field to its first message (docs/product.md §5 texts). */
export interface ApiError {
  error: string;
  fields?: Record<string, string>;
  /** On a 429: seconds until the limit lets the request through (also its Retry-After header). */
  retryAfterSeconds?: number;
}

/** The user model of docs/product.md §3. `chatCount` is the member's points. */
export interface UserView {
  id: string;
  email: string;
  priority: Priority;
  chatCount: number;
  downloads: number;
  fullname: string;
  country: string;
  link: string;
  image: Image | null;
  message: string;
  passes: number;
  /** Total USD the member has bought (spec's `buyed`). */
  buyed: number;
  createdAt: string;
  updatedAt: string;
}

export interface AdminView {
  id: string;
  email: string;
  authorized: boolean;
}

// ---- command-api -----------------------------------------------------------------------
/** POST /api/register-user: unknown e-mail registers, known e-mail + right password logs in. Sets the session cookie. */
export interface RegisterUserRequest { email: string; password: string }
export type RegisterUserResponse = UserView & { registered: boolean };

// ---- A member's data and access (command-api/README.md, "Members' data and access") ----------
// Bodies are checked by events/src/rules/account-access.ts (changePasswordSchema, passwordResetSchema,
// passwordResetConfirmSchema); a refusal is the usual `ApiError`, with `fields` for form rules.

/** POST /api/change-password (member) → 204; a wrong current password is a 400 on `currentPassword`. Every other session ends. */
export interface ChangePasswordRequest { currentPassword: string; newPassword: string }
/** POST /api/password-reset → 202 with `PasswordResetResponse`, the same answer whether or not the e-mail is registered. */
export interface PasswordResetRequest { email: string }
export interface PasswordResetResponse { message: string }
/** POST /api/password-reset/confirm → 204; every session of the member ends. `token` is the link's `#token=`. */
export interface PasswordResetConfirmRequest { token: string; password: string }
/**
 * POST /api/password-reset/check `{ token }` → 200 `{ usable: true }` while the link still sets a
 * password; a used, expired or forged one is the confirmation's 400. Asking does not use it.
 */
export interface PasswordResetCheckResponse { usable: true }

/** GET /api/my-data (member): everything the site holds about the session's member, as a JSON download. */
export interface MyDataExport {
  exportedAt: string;
  account: { id: string; email: string; priority: Priority; createdAt: string; updatedAt: string; passwordChangedAt: string | null };
  balance: { points: number; passes: number; boughtUsd: number };
  /** The public card, null when none is posted (or the admin deleted it). `imageUrl` is absolute. */
  card: { fullname: string; country: string; email: string; link: string; message: string; imageUrl: string; postedAt: string } | null;
  /** Every event of the member's stream with its effect and running totals (the admin's point history). */
  pointHistory: PointHistoryEntry[];
  chatMessages: Array<{ id: string; nickname: string; message: string; pointsSpent: number; sentAt: string }>;
  purchases: Array<{ provider: string; orderId: string; captureId: string; amountUsd: number; points: number; purchasedAt: string }>;
  refunds: Array<{ captureId: string; reason: 'refunded' | 'reversed'; amountUsd: number; points: number; partial: boolean; reversedAt: string }>;
  passes: Array<{ passes: number; pointsSpent: number; claimedAt: string }>;
  /** The member's stored `PasswordResetRequested` events (asking for a signed link records none). */
  passwordResets: Array<{ requestedAt: string; expiresAt: string }>;
  /** Live sessions (no token or id): `current` is the one that asked for this export. */
  sessions: Array<{ createdAt: string; lastSeenAt: string | null; expiresAt: string; current: boolean }>;
}
/** POST /api/logout → 204, clears the session cookie. */
/** GET /api/verify-access/:userId → UserView, only for the session's own user (401 guest, 403 other). */
/**
 * POST /api/register-special-user, multipart: fullname, country, email, link, image (file),
 * message, passes. Posts or updates the certificate and claims `passes` (0 allowed only to
 * update an existing certificate).
 */
export interface RegisterSpecialUserResponse { id: string; user: UserView }
/**
 * POST /api/free-point/ticket → a signed ticket proving the /content/check countdown started
 * now (server time). The web asks for it when the countdown starts and sends it with the award.
 */
export interface AdViewTicketResponse {
  ticket: string;
  issuedAt: string;
  /** The award is accepted from this time (the countdown's 29 s, less a second of slack). */
  readyAt: string;
  /** Not accepted after this time. */
  expiresAt: string;
}
/**
 * POST /api/free-point {ticket} → the updated user. 400 without a valid ticket of this member or
 * when it expired, 429 (Retry-After) before the ad was watched to the end or within 30 s of the
 * last point, 409 when the ticket already earned its point. `error` is a message the UI shows.
 */
export interface FreePointRequest { ticket: string }
export interface FreePointResponse { user: UserView }
/**
 * POST /api/chat-messages → 201; 402 with `{error}` when the member has no points left.
 * `requestId` (1–100 of letters, digits, `_.:-`; a UUID per draft) makes a retry safe: sent again
 * with the same id (after a lost answer, over HTTP or the socket), the message is posted once and
 * the answer is the first one's message, with no point spent again.
 */
export interface SendChatMessageRequest { message: string; requestId?: string }
export interface SendChatMessageResponse { message: ChatMessageView; user: UserView }
/** POST /api/admin-login → AdminView, sets the admin session cookie. POST /api/admin-logout → 204. */
export interface AdminLoginRequest { email: string; password: string }
/** POST /api/verify-admin-access/:adminId → AdminView (authorized false without an admin session). */
/** PUT /api/main-data (admin) → MainDataEditResult */
export interface EditMainDataRequest { available: number; cpm: number; donations: number; startDate: string }
/** PUT /api/reset-ads-views (admin) */
export interface ResetAdViewsRequest { views: number }
/** DELETE /api/member-post/:userId (admin) → 204. DELETE /api/delete-chat-messages (admin) → 204. */

/** Payments (issue "Payments"): the server owns prices (docs/product.md §9). */
export interface CreateOrderRequest { amountUsd: number }
export type PaymentProviderName = 'paypal' | 'simulated';
export interface CreateOrderResponse { orderId: string; provider: PaymentProviderName; testMode: boolean }

/** GET /api/payments/config: what the web checkout needs to show the right buttons (read at run time, not build time). */
export interface PaymentsConfigResponse {
  provider: PaymentProviderName;
  /** True when no real money moves (simulated provider, PayPal sandbox): the checkout says "test mode". */
  testMode: boolean;
  /** PayPal's public client id for its JS SDK; null for the simulated provider. */
  clientId: string | null;
  currency: 'USD';
}
/** POST /api/payments/orders/:orderId/capture → points credited once per capture id. */
export interface CaptureOrderResponse { status: 'COMPLETED'; points: number; user: UserView }
/** POST /api/buy-points: the spec's helper; `{ orderId }` of a captured order, same rule as capture. */
export interface BuyPointsRequest { orderId: string; amount?: number; email?: string }

// ---- query-api -------------------------------------------------------------------------
/** GET /api/main-data */
export interface MainDataView {
  available: number;
  /** Taken passes. */
  sold: number;
  views: number;
  cpm: number;
  donations: number;
  /** day/month/year or ''. */
  startDate: string;
  /** Sum of all members' purchases in USD. */
  purchasesUsd: number;
  /** views × cpm + purchasesUsd + donations (docs/product.md §1, as written). */
  fundsRaised: number;
  /** Users with passes > 0. */
  members: number;
  /** Total chat messages sent since the last clear. */
  globalMessages: number;
}

export interface CountryCount { country: string; users: number }
/** GET /api/countries → distinct countries among members and the top 5 by count. */
export interface CountriesView { distinct: number; top: CountryCount[] }

export interface Page<T> { total: number; page: number; pageSize: number; items: T[] }

/** GET /api/ranking?page=1&pageSize=50&q=text (q matches name, country or date) */
export interface RankingEntry {
  rank: number;
  userId: string;
  fullname: string;
  country: string;
  passes: number;
  link: string;
  imageUrl: string | null;
  message: string;
  priority: Priority;
  createdAt: string;
}

/** GET /api/registry?page=1&pageSize=50&q=text (q matches e-mail, full name or dd/mm/yyyy date) */
export interface RegistryRow {
  userId: string;
  createdAt: string;
  /** Full name, or the e-mail masked as first 3 characters, stars, domain. */
  member: string;
  passes: number;
  points: number;
  priority: Priority;
}

/** GET /api/chat-messages?limit=50 */
export interface ChatMessageView {
  id: string;
  userId: string;
  nickname: string;
  message: string;
  priority: Priority;
  sentAt: string;
}
export interface ChatHistory { total: number; messages: ChatMessageView[] }

/** A stored chat message as readers see it (the projector's history and a retried send's answer). */
export const toChatMessageView = (data: EventData<'ChatMessageSent'>): ChatMessageView => ({
  id: data.messageId,
  userId: data.userId,
  nickname: data.nickname,
  message: data.message,
  priority: data.priority,
  sentAt: data.sentAt,
});

/** GET /api/global-post → the newest global post or null. */
export interface GlobalPostView {
  user: { id: string; fullname: string; country: string; image: Image | null; priority: Priority };
  message: string;
  postedAt: string;
}

/** GET /api/me → UserView of the session (401 for guests). */

/** One event of a member's stream with what it did to the balance and the running totals after it. */
export interface PointHistoryEntry {
  revision: number;
  at: string;
  type: string;
  description: string;
  pointsDelta: number;
  passesDelta: number;
  points: number;
  passes: number;
  actor: string;
  correlationId: string;
}

/**
 * The card as the site showed it after an event of the admin's story: none, erased (the member's
 * personal data is destroyed: shown at every step that had a card) or shown. `imageUrl` is null
 * once a later card or the admin's deletion replaced the image (its file is deleted with it).
 */
export type MemberStoryCard =
  | { status: 'none' }
  | { status: 'erased' }
  | { status: 'shown'; fullname: string; country: string; link: string; message: string; imageUrl: string | null };

/**
 * GET /api/admin/members/:userId/history (admin): the member's story, each event with the
 * timeline's running totals and the priority and card after it; `?format=csv` for a CSV download
 * (the timeline's columns, then priority and the card's).
 */
export interface MemberStoryEntry extends PointHistoryEntry {
  priority: Priority;
  card: MemberStoryCard;
}

/** GET /api/admin/posts?q=text&page=1&pageSize=50 (admin): member cards for the dashboard's post search (q also matches an e-mail). */
export interface AdminPostEntry extends RankingEntry {
  email: string;
  points: number;
}

/** GET /api/admin/projections (admin); POST /api/admin/projections/rebuild (admin). */
export interface ProjectionStatus {
  position: string;
  headPosition: string;
  lagEvents: number;
  lagSeconds: number;
  lastError: string | null;
  rebuild: { state: 'idle' | 'running' | 'switching' | 'failed'; processed: number; total: number; startedAt: string | null };
  /**
   * Distributed: the projectors' group. `holder` and `epoch` are the lease's (null, 0: nobody
   * leads); `members` every projector seen within the last few lease periods, with its role.
   */
  leadership?: {
    holder: string | null;
    epoch: number;
    members: Array<{ instance: string; role: 'leader' | 'standby' | 'builder'; seenAt: string }>;
  };
}

/**
 * POST /api/admin/replays (admin): the site as of a moment, an ISO-8601 time or an event position
 * as ProjectionStatus shows it. 202 `{ id }`; the replay then runs as a job.
 */
export type ReplayRequest = { at: string } | { position: string };

/**
 * GET /api/admin/replays/:id (admin). `at` and `position` are the moment asked for until the
 * replay is ready, then the moment it stopped at: the position of the last event replayed and
 * its recorded time (for a time asked for, that time). `progress` is an estimate until `ready`.
 */
export interface ReplayStatus {
  id: string;
  status: 'running' | 'ready' | 'failed';
  progress: number;
  at: string | null;
  position: string | null;
  /** Events replayed so far. */
  events: number;
  startedAt: string;
  error: string | null;
}

/** One side of a replay diff: a replay's moment, or `now` (the live read models). */
export interface ReplayDiffSide {
  id: string;
  at: string | null;
  position: string | null;
}

/** A member in a diff: who, and where they stood on each side (null: not in that side's top). */
export interface ReplayMover {
  userId: string;
  name: string;
  rankThen: number | null;
  rankNow: number | null;
  passesThen: number;
  passesNow: number;
}

/** A figure on both sides and how far it moved (now − then). */
export interface ReplayFigure {
  then: number;
  now: number;
  moved: number;
}

/**
 * GET /api/admin/replays/:id/diff/:otherId (admin; either may be `now`): `then` is :id, `now`
 * :otherId. Members joined are on the second side only, members left (erased) on the first
 * only; the samples name the first few. Movers compare the top `moversAmong` of each ranking.
 */
export interface ReplayDiff {
  then: ReplayDiffSide;
  now: ReplayDiffSide;
  members: ReplayFigure & { joined: number; left: number; joinedSample: ReplayMover[]; leftSample: ReplayMover[] };
  passes: ReplayFigure;
  /** Points members hold (their rows' balances). */
  points: ReplayFigure;
  funds: ReplayFigure;
  movers: ReplayMover[];
  moversAmong: number;
}

/**
 * GET /api/admin/image-jobs (admin): image jobs that failed every attempt (the dead letters),
 * newest first. `queue`: `bullmq` in the distributed layout; `in-process` in standalone, where an
 * image is processed inside its request and nothing is queued (`jobs` is then empty). No
 * personal data: the image itself is never shown.
 */
export interface FailedImageJob {
  id: string;
  failedAt: string;
  attempts: number;
  reason: string;
}
export interface FailedImageJobs {
  queue: 'bullmq' | 'in-process';
  total: number;
  jobs: FailedImageJob[];
}

/**
 * One UTC day of GET /api/progress (and of the `progress` broadcast). `passesTaken`, `members`
 * and `fundsRaised` are as they stood at the day's end (funds by `fundsRaised` with the cpm,
 * donations, ad views and purchases in force then); `freePoints`, `pointsBought` (net of that
 * day's refunds, so it can be negative) and `chatMessages` are that day's own counts.
 */
export interface ProgressDay {
  /** YYYY-MM-DD, UTC. */
  date: string;
  passesTaken: number;
  members: number;
  fundsRaised: number;
  freePoints: number;
  pointsBought: number;
  chatMessages: number;
}
/**
 * GET /api/progress: the goal, the start date as main data gives it, and one entry per day from
 * the first day anything was counted to the last, oldest first, with no gaps (a quiet day repeats
 * the day before's totals and counts nothing). Days after the last one are not listed: a chart
 * that runs to today extends the last entry the same way (`continuousProgress`).
 */
export interface ProgressView {
  goal: { passes: number; days: number };
  startDate: string;
  days: ProgressDay[];
}

// ---- Socket.IO ---------------------------------------------------------------------------
export interface UpdatedMainDataPayload { mainData: MainDataView; countries: CountriesView }

/** Acknowledgement of a client→server event that changes state. */
export type Ack<T> = (answer: { ok: true; data: T } | { ok: false; error: string; status: number; retryAfterSeconds?: number }) => void;

/**
 * Why a member's sessions ended elsewhere: signed out everywhere, the account deleted, or the
 * password changed (from another device, or with a reset link).
 */
export type SignedOutReason = 'everywhere' | 'deleted' | 'password-changed';
export interface SignedOutNotice { reason: SignedOutReason }

export interface ServerToClientEvents {
  connectedUsers: (count: number) => void;
  updatedMainData: (payload: UpdatedMainDataPayload) => void;
  globalMember: (post: GlobalPostView) => void;
  globalMessage: (post: GlobalPostView) => void;
  chatMessage: (message: ChatMessageView) => void;
  /** Answer to getChatMessages, and sent to everyone after the admin clears the chat. */
  chatMessages: (history: ChatHistory) => void;
  /** The current day of GET /api/progress, after a batch changed it (coalesced like the figures). */
  progress: (day: ProgressDay) => void;
  /** To the sockets of a member whose session just ended (not the one that ended it, when it goes on): it is a guest now. */
  signedOut: (notice: SignedOutNotice) => void;
}

export interface ClientToServerEvents {
  getUpdatedMainData: () => void;
  getGlobalMember: () => void;
  getChatMessages: () => void;
  /** The user is taken from the handshake's session cookie, never from the payload. */
  sendChatMessage: (draft: SendChatMessageRequest, ack?: Ack<SendChatMessageResponse>) => void;
  /** Awards the free point of /content/check (same rules and ticket as POST /api/free-point). */
  increaseChatCount: (request: FreePointRequest, ack?: Ack<FreePointResponse>) => void;
  /**
   * Kept for the spec's client: the point of a chat message is spent inside sendChatMessage's
   * single append, so this answers the session's current user and changes nothing.
   */
  decreaseChatCount: (ack?: Ack<{ user: UserView }>) => void;
}
