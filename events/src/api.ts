/**
 * The wire contract between web/, command-api and query-api: JSON bodies of every route and
 * the payloads of every Socket.IO event. Browser-safe, types only. Routes are relative to the
 * one origin (standalone: http://localhost:3000). All calls send credentials (session cookie).
 */
import type { EventData, Priority, Image } from './domain-events';

/** Every 4xx/5xx answer. `fields` maps a form field to its first message (spec §5 texts). */
export interface ApiError {
  error: string;
  fields?: Record<string, string>;
}

/** The spec's user model (§3). `chatCount` is the member's points. */
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

/** Payments (issue "Payments"): the server owns prices (spec §9). */
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
  /** views × cpm + purchasesUsd + donations (spec §1, as written). */
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
export const toChatMessageView = (d: EventData<'ChatMessageSent'>): ChatMessageView => ({
  id: d.messageId,
  userId: d.userId,
  nickname: d.nickname,
  message: d.message,
  priority: d.priority,
  sentAt: d.sentAt,
});

/** GET /api/global-post → the newest global post or null. */
export interface GlobalPostView {
  user: { id: string; fullname: string; country: string; image: Image | null; priority: Priority };
  message: string;
  postedAt: string;
}

/** GET /api/me → UserView of the session (401 for guests). */

/** GET /api/admin/members/:userId/history (admin); `?format=csv` for a CSV download. */
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
}

// ---- Socket.IO ---------------------------------------------------------------------------
export interface UpdatedMainDataPayload { mainData: MainDataView; countries: CountriesView }

/** Acknowledgement of a client→server event that changes state. */
export type Ack<T> = (answer: { ok: true; data: T } | { ok: false; error: string; status: number }) => void;

export interface ServerToClientEvents {
  connectedUsers: (count: number) => void;
  updatedMainData: (payload: UpdatedMainDataPayload) => void;
  globalMember: (post: GlobalPostView) => void;
  globalMessage: (post: GlobalPostView) => void;
  chatMessage: (message: ChatMessageView) => void;
  /** Answer to getChatMessages, and sent to everyone after the admin clears the chat. */
  chatMessages: (history: ChatHistory) => void;
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
