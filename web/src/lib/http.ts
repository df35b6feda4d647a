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
  FreePointResponse,
  MainDataView,
  Page,
  PointHistoryEntry,
  ProjectionStatus,
  RankingEntry,
  RegisterSpecialUserResponse,
  RegisterUserRequest,
  RegisterUserResponse,
  RegistryRow,
  SendChatMessageResponse,
  PaymentsConfigResponse,
  UserView,
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

type Body = unknown;

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
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) {
    const apiError = parsed && typeof parsed === 'object' && 'error' in parsed ? (parsed as ApiError) : { error: '' };
    throw new HttpError(response.status, apiError);
  }
  return parsed as T;
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
  ranking: (q: string, pageSize = 50) => request<Page<RankingEntry>>('GET', `/api/ranking?${qs({ page: 1, pageSize, q })}`),
  registry: (q: string, pageSize = 50) => request<Page<RegistryRow>>('GET', `/api/registry?${qs({ page: 1, pageSize, q })}`),
  chatMessages: (limit = CHAT_PANEL_MESSAGES) => request<ChatHistory>('GET', `/api/chat-messages?limit=${limit}`),

  adminLogin: (body: AdminLoginRequest) => request<AdminView>('POST', '/api/admin-login', body),
  adminLogout: () => request<void>('POST', '/api/admin-logout'),
  verifyAdmin: (adminId: string) => request<AdminView>('POST', `/api/verify-admin-access/${encodeURIComponent(adminId)}`),
  adminPosts: (q: string, pageSize = 50) =>
    request<Page<AdminPostEntry>>('GET', `/api/admin/posts?${qs({ page: 1, pageSize, q })}`),
  memberHistory: (userId: string) =>
    request<PointHistoryEntry[]>('GET', `/api/admin/members/${encodeURIComponent(userId)}/history`),
  projections: () => request<ProjectionStatus>('GET', '/api/admin/projections'),
  rebuildProjections: () => request<ProjectionStatus['rebuild']>('POST', '/api/admin/projections/rebuild'),
  deleteMemberPost: (userId: string) => request<void>('DELETE', `/api/member-post/${encodeURIComponent(userId)}`),
  deleteChatMessages: () => request<void>('DELETE', '/api/delete-chat-messages'),
  editMainData: (body: EditMainDataRequest) => request<unknown>('PUT', '/api/main-data', body),
  resetAdsViews: (views: number) => request<unknown>('PUT', '/api/reset-ads-views', { views }),

  paymentsConfig: () => request<PaymentsConfigView>('GET', '/api/payments/config'),
  createOrder: (amountUsd: number) => request<CreateOrderResponse>('POST', '/api/payments/orders', { amountUsd }),
  captureOrder: (orderId: string) =>
    request<CaptureOrderResponse>('POST', `/api/payments/orders/${encodeURIComponent(orderId)}/capture`),
  buyPoints: (body: BuyPointsRequest) => request<unknown>('POST', '/api/buy-points', body),
};

export type Api = typeof api;
