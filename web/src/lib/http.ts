import type {
  AdViewTicketResponse,
  AdminLoginRequest,
  AdminPostEntry,
  AdminView,
  ApiError,
  BuyPointsRequest,
  CaptureOrderResponse,
  ChatHistory,
  CountriesView,
  CreateOrderResponse,
  EditMainDataRequest,
  FailedImageJobs,
  FreePointResponse,
  MainDataView,
  MemberStoryEntry,
  Page,
  ProgressView,
  ProjectionStatus,
  RankingEntry,
  RegisterSpecialUserResponse,
  ReplayDiff,
  ReplayRequest,
  ReplayStatus,
  RegisterUserRequest,
  RegisterUserResponse,
  RegistryRow,
  SendChatMessageResponse,
  PaymentsConfigResponse,
  UserView,
  ChangePasswordForm,
  PasswordResetCheckResponse,
  PasswordResetConfirmForm,
} from '@pass/events/kernel';
import { CHAT_PANEL_MESSAGES } from '@pass/events/kernel';

/** GET /api/payments/config: which checkout buttons to show. */
export type PaymentsConfigView = PaymentsConfigResponse;

/** A non-2xx answer; `body` is the server's ApiError when it sent one. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError,
  ) {
    super(body.error || `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

/** The server's error text, or a generic one for network failures. */
export function errorText(error: unknown): string {
  if (error instanceof HttpError) return error.body.error || `HTTP ${error.status}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * What to tell the member about a refusal: the server's words (a 429's say the wait, as the join
 * form shows them for logins), else the wait alone, else the status.
 */
export function refusalText(error: unknown): string {
  if (error instanceof HttpError && error.status === 429 && !error.body.error) {
    const wait = error.body.retryAfterSeconds ?? 1;
    return `Too many attempts. Please wait ${wait} second${wait === 1 ? '' : 's'} and try again.`;
  }
  return errorText(error);
}

type Body = unknown;

/** A non-2xx answer as an HttpError carrying the server's ApiError when the body is one. */
function failure(status: number, text: string): HttpError {
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return new HttpError(status, apiErrorOf(parsed));
}

/** The body as an ApiError; a body that says only `{ message }` gives that as its error text. */
function apiErrorOf(parsed: unknown): ApiError {
  if (!parsed || typeof parsed !== 'object') return { error: '' };
  if ('error' in parsed) return parsed as ApiError;
  const { message } = parsed as { message?: unknown };
  return { error: typeof message === 'string' ? message : '' };
}

/** A file the server sends as an attachment: its bytes and the name its Content-Disposition gives. */
export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

async function download(path: string, fallbackName: string): Promise<DownloadedFile> {
  const response = await fetch(path, { credentials: 'include', headers: { Accept: 'application/json' } });
  if (!response.ok) throw failure(response.status, await response.text());
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const filename = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? fallbackName;
  return { blob: await response.blob(), filename };
}

async function request<T>(method: string, path: string, body?: Body): Promise<T> {
  const init: RequestInit = { method, credentials: 'include', headers: { Accept: 'application/json' } };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  const response = await fetch(path, init);
  const text = await response.text();
  if (!response.ok) throw failure(response.status, text);
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined as T;
  }
}

const qs = (params: Record<string, string | number>) =>
  Object.entries(params)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');

/** Every HTTP route of api.ts the web uses. */
export const api = {
  me: () => request<UserView>('GET', '/api/me'),
  verifyAccess: (userId: string) => request<UserView>('GET', `/api/verify-access/${encodeURIComponent(userId)}`),
  registerUser: (body: RegisterUserRequest) => request<RegisterUserResponse>('POST', '/api/register-user', body),
  logout: () => request<void>('POST', '/api/logout'),
  registerSpecialUser: (form: FormData) => request<RegisterSpecialUserResponse>('POST', '/api/register-special-user', form),
  /** The countdown of /content/check starts: the server's proof of when (sent back with the award). */
  adViewTicket: () => request<AdViewTicketResponse>('POST', '/api/free-point/ticket'),
  freePoint: (ticket: string) => request<FreePointResponse>('POST', '/api/free-point', { ticket }),
  /** `requestId`: one per draft, the same on a retry, so the server posts it once. */
  sendChatMessage: (message: string, requestId: string) => request<SendChatMessageResponse>('POST', '/api/chat-messages', { message, requestId }),

  mainData: () => request<MainDataView>('GET', '/api/main-data'),
  countries: () => request<CountriesView>('GET', '/api/countries'),
  progress: () => request<ProgressView>('GET', '/api/progress'),
  ranking: (q: string, pageSize = 50) => request<Page<RankingEntry>>('GET', `/api/ranking?${qs({ page: 1, pageSize, q })}`),
  registry: (q: string, pageSize = 50) => request<Page<RegistryRow>>('GET', `/api/registry?${qs({ page: 1, pageSize, q })}`),
  chatMessages: (limit = CHAT_PANEL_MESSAGES) => request<ChatHistory>('GET', `/api/chat-messages?limit=${limit}`),

  adminLogin: (body: AdminLoginRequest) => request<AdminView>('POST', '/api/admin-login', body),
  adminLogout: () => request<void>('POST', '/api/admin-logout'),
  verifyAdmin: (adminId: string) => request<AdminView>('POST', `/api/verify-admin-access/${encodeURIComponent(adminId)}`),
  adminPosts: (q: string, pageSize = 50) =>
    request<Page<AdminPostEntry>>('GET', `/api/admin/posts?${qs({ page: 1, pageSize, q })}`),
  memberHistory: (userId: string) =>
    request<MemberStoryEntry[]>('GET', `/api/admin/members/${encodeURIComponent(userId)}/history`),
  projections: () => request<ProjectionStatus>('GET', '/api/admin/projections'),
  rebuildProjections: () => request<ProjectionStatus['rebuild']>('POST', '/api/admin/projections/rebuild'),
  imageJobFailures: () => request<FailedImageJobs>('GET', '/api/admin/image-jobs'),
  deleteMemberPost: (userId: string) => request<void>('DELETE', `/api/member-post/${encodeURIComponent(userId)}`),
  deleteChatMessages: () => request<void>('DELETE', '/api/delete-chat-messages'),
  editMainData: (body: EditMainDataRequest) => request<unknown>('PUT', '/api/main-data', body),
  resetAdsViews: (views: number) => request<unknown>('PUT', '/api/reset-ads-views', { views }),

  paymentsConfig: () => request<PaymentsConfigView>('GET', '/api/payments/config'),
  createOrder: (amountUsd: number) => request<CreateOrderResponse>('POST', '/api/payments/orders', { amountUsd }),
  captureOrder: (orderId: string) =>
    request<CaptureOrderResponse>('POST', `/api/payments/orders/${encodeURIComponent(orderId)}/capture`),
  buyPoints: (body: BuyPointsRequest) => request<unknown>('POST', '/api/buy-points', body),

  // A member's own data and access (docs/product.md §2 /content/my-data).
  /** GET /api/my-data: everything kept about the member, as a JSON file. */
  myData: () => download('/api/my-data', 'my-data.json'),
  changePassword: (body: ChangePasswordForm) => request<void>('POST', '/api/change-password', body),
  logoutEverywhere: () => request<void>('POST', '/api/logout-everywhere'),
  deleteMyAccount: (password: string) => request<void>('DELETE', '/api/my-account', { password }),
  /** Answers 202 and the same body whether or not the e-mail is registered. */
  requestPasswordReset: (email: string) => request<unknown>('POST', '/api/password-reset', { email }),
  /** Whether the mailed link still sets a password (a 400 when not); the token goes in the body, never in a URL. */
  checkPasswordReset: (token: string) => request<PasswordResetCheckResponse>('POST', '/api/password-reset/check', { token }),
  confirmPasswordReset: (body: PasswordResetConfirmForm) => request<void>('POST', '/api/password-reset/confirm', body),
  /** DELETE /api/admin/members/:userId (admin): the member's personal data is erased. */
  eraseMember: (userId: string) => request<void>('DELETE', `/api/admin/members/${encodeURIComponent(userId)}`),

  // The admin's time machine: a replay of the events up to a moment, read like the public routes.
  /** 202 `{ id }`; a 400 for a moment in the future or before the first event, a 429 when too many are kept. */
  createReplay: (moment: ReplayRequest) => request<{ id: string }>('POST', '/api/admin/replays', moment),
  replayStatus: (id: string) => request<ReplayStatus>('GET', replayPath(id)),
  /** A replay's bodies are the public routes' (a 409 while it still runs). */
  replayMainData: (id: string) => request<MainDataView>('GET', `${replayPath(id)}/main-data`),
  replayCountries: (id: string) => request<CountriesView>('GET', `${replayPath(id)}/countries`),
  replayRanking: (id: string, q: string, pageSize = 50) =>
    request<Page<RankingEntry>>('GET', `${replayPath(id)}/ranking?${qs({ page: 1, pageSize, q })}`),
  replayChatMessages: (id: string, limit = CHAT_PANEL_MESSAGES) =>
    request<ChatHistory>('GET', `${replayPath(id)}/chat-messages?limit=${limit}`),
  /** Either id may be `now`, the live state. */
  replayDiff: (id: string, otherId: string) => request<ReplayDiff>('GET', `${replayPath(id)}/diff/${encodeURIComponent(otherId)}`),
  deleteReplay: (id: string) => request<void>('DELETE', replayPath(id)),
};

function replayPath(id: string): string {
  return `/api/admin/replays/${encodeURIComponent(id)}`;
}

export type Api = typeof api;
