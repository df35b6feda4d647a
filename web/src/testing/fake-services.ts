import { vi, type Mock } from 'vitest';
import type { ChatMessageView, ClientToServerEvents, MainDataView, ProgressView, ReplayDiff, ReplayStatus, ServerToClientEvents, UserView } from '@pass/events/kernel';
import { createAppStore, rootReducer, type RootState } from '../app/store';
import type { Api } from '../lib/http';
import type { AdSlot, Services } from '../lib/services';
import type { LiveSocket } from '../lib/socket';
import { guestUser } from '../lib/state/session';

// Feature tests reach the real store through here, never app/ directly.
export { createAppStore };

/** The whole store's state before anything happened. */
export const initialState = (): RootState => rootReducer(undefined, { type: '@@init' });

/** A Socket.IO stand-in: the test plays the server. */
export class FakeSocket implements LiveSocket {
  connected = false;
  emitted: { event: keyof ClientToServerEvents; args: unknown[] }[] = [];
  private handlers = new Map<string, ((...args: never[]) => void)[]>();
  /** Answers for acknowledged emits, by event name. */
  acks: Partial<Record<keyof ClientToServerEvents, (...args: unknown[]) => unknown>> = {};

  on<E extends keyof ServerToClientEvents>(event: E, listener: ServerToClientEvents[E]) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), listener as (...args: never[]) => void]);
  }
  onLifecycle(event: 'connect' | 'disconnect', listener: () => void) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), listener]);
  }
  emit<E extends keyof ClientToServerEvents>(event: E, ...args: Parameters<ClientToServerEvents[E]>) {
    this.emitted.push({ event, args });
    const last = args[args.length - 1];
    const answer = this.acks[event];
    if (typeof last === 'function' && answer) (last as (a: unknown) => void)(answer(...args));
  }
  reconnects = 0;
  reconnect() {
    this.reconnects++;
    this.connect();
  }
  disconnect() {
    this.connected = false;
  }
  /** The server side. */
  serverEmit<E extends keyof ServerToClientEvents>(event: E, ...args: Parameters<ServerToClientEvents[E]>) {
    for (const h of this.handlers.get(event) ?? []) (h as (...a: unknown[]) => void)(...args);
  }
  connect() {
    this.connected = true;
    for (const h of this.handlers.get('connect') ?? []) (h as () => void)();
  }
  emittedNames() {
    return this.emitted.map((e) => e.event);
  }
}

export const sampleMainData: MainDataView = {
  available: 1000,
  sold: 25,
  views: 1000,
  cpm: 2,
  donations: 10,
  startDate: '01/01/2026',
  purchasesUsd: 5,
  fundsRaised: 17,
  members: 3,
  globalMessages: 4,
};

/** GET /api/progress two days into the run (main data's start date, 01/01/2026). */
export const sampleProgress: ProgressView = {
  goal: { passes: 1_000_000, days: 365 },
  startDate: '01/01/2026',
  days: [
    { date: '2026-01-01', passesTaken: 10, members: 2, fundsRaised: 5, freePoints: 4, pointsBought: 100, chatMessages: 3 },
    { date: '2026-01-02', passesTaken: 25, members: 3, fundsRaised: 17, freePoints: 6, pointsBought: 0, chatMessages: 1 },
  ],
};

export const sampleUser: UserView = {
  ...guestUser,
  id: 'u1',
  email: 'ann@example.com',
  chatCount: 30,
  createdAt: '2026-01-02T00:00:00.000Z',
};

/** A chat message from another member (Bob) unless a user id is given. */
export const chatMessage = (id: string, userId = 'u2'): ChatMessageView => ({ id, userId, nickname: 'Bob', message: 'hi', priority: 'normalUser', sentAt: '' });

const never = () => new Promise<never>(() => {});

export function fakeApi(): { [K in keyof Api]: ReturnType<typeof vi.fn> } & Api {
  return {
    me: vi.fn(async () => sampleUser),
    verifyAccess: vi.fn(async () => sampleUser),
    registerUser: vi.fn(async () => ({ ...sampleUser, registered: true })),
    logout: vi.fn(async () => undefined),
    registerSpecialUser: vi.fn(async () => ({ id: 'u1', user: { ...sampleUser, passes: 1 } })),
    adViewTicket: vi.fn(async () => ({
      ticket: 'v1.ticket',
      issuedAt: '2026-01-02T00:00:00.000Z',
      readyAt: '2026-01-02T00:00:28.000Z',
      expiresAt: '2026-01-02T00:05:00.000Z',
    })),
    freePoint: vi.fn(async () => ({ user: { ...sampleUser, chatCount: sampleUser.chatCount + 1 } })),
    sendChatMessage: vi.fn(never),
    mainData: vi.fn(async () => sampleMainData),
    countries: vi.fn(async () => ({ distinct: 1, top: [{ country: 'Spain', users: 3 }] })),
    progress: vi.fn(async () => sampleProgress),
    ranking: vi.fn(async () => ({ total: 0, page: 1, pageSize: 50, items: [] })),
    registry: vi.fn(async () => ({ total: 0, page: 1, pageSize: 50, items: [] })),
    chatMessages: vi.fn(async () => ({ total: 0, messages: [] })),
    adminLogin: vi.fn(async () => ({ id: 'a1', email: 'admin@example.com', authorized: true })),
    adminLogout: vi.fn(async () => undefined),
    verifyAdmin: vi.fn(async () => ({ id: 'a1', email: 'admin@example.com', authorized: true })),
    adminPosts: vi.fn(async () => ({ total: 0, page: 1, pageSize: 50, items: [] })),
    memberHistory: vi.fn(async () => []),
    projections: vi.fn(async () => ({
      position: '10',
      headPosition: '10',
      lagEvents: 0,
      lagSeconds: 0,
      lastError: null,
      rebuild: { state: 'idle' as const, processed: 0, total: 0, startedAt: null },
    })),
    rebuildProjections: vi.fn(async () => ({ state: 'running' as const, processed: 0, total: 10, startedAt: '' })),
    imageJobFailures: vi.fn(async () => ({ queue: 'bullmq' as const, total: 0, jobs: [] })),
    deleteMemberPost: vi.fn(async () => undefined),
    deleteChatMessages: vi.fn(async () => undefined),
    editMainData: vi.fn(async () => ({})),
    resetAdsViews: vi.fn(async () => ({})),
    paymentsConfig: vi.fn(async () => ({ provider: 'simulated' as const, testMode: true, clientId: null, currency: 'USD' as const })),
    createOrder: vi.fn(async () => ({ orderId: 'o1', provider: 'simulated' as const, testMode: true })),
    captureOrder: vi.fn(async () => ({ status: 'COMPLETED' as const, points: 100, user: { ...sampleUser, chatCount: 130 } })),
    buyPoints: vi.fn(async () => ({})),
    myData: vi.fn(async () => ({ blob: new Blob(['{"timeline":[]}'], { type: 'application/json' }), filename: 'my-data.json' })),
    changePassword: vi.fn(async () => undefined),
    logoutEverywhere: vi.fn(async () => undefined),
    deleteMyAccount: vi.fn(async () => undefined),
    requestPasswordReset: vi.fn(async () => ({})),
    checkPasswordReset: vi.fn(async () => ({ usable: true as const })),
    confirmPasswordReset: vi.fn(async () => undefined),
    eraseMember: vi.fn(async () => undefined),
    createReplay: vi.fn(async () => ({ id: 'r1' })),
    replayStatus: vi.fn(async (id: string): Promise<ReplayStatus> => ({
      id, status: 'ready', progress: 1, at: '2026-03-01T10:00:00.000Z', position: '42', events: 42, startedAt: '2026-03-10T12:00:00.000Z', error: null,
    })),
    replayMainData: vi.fn(async () => sampleMainData),
    replayCountries: vi.fn(async () => ({ distinct: 1, top: [{ country: 'Spain', users: 3 }] })),
    replayRanking: vi.fn(async () => ({ total: 0, page: 1, pageSize: 50, items: [] })),
    replayChatMessages: vi.fn(async () => ({ total: 0, messages: [] })),
    replayDiff: vi.fn(async (id: string, otherId: string): Promise<ReplayDiff> => {
      const still = { then: 0, now: 0, moved: 0 };
      return {
        then: { id, at: null, position: null },
        now: { id: otherId, at: null, position: null },
        members: { ...still, joined: 0, left: 0, joinedSample: [], leftSample: [] },
        passes: still,
        points: still,
        funds: still,
        movers: [],
        moversAmong: 1_000,
      };
    }),
    deleteReplay: vi.fn(async () => undefined),
  } as never;
}

export interface Harness {
  services: Services;
  api: ReturnType<typeof fakeApi>;
  socket: FakeSocket;
  storage: Map<string, string>;
  /** Loaded ad iframes per slot kind; slots are 1 (main, check) or 3 (popup) unless set. */
  ads: Record<AdSlot, { slots: number; loaded: number }>;
  navigate: Mock<Services['navigate']>;
  redirectHome: Mock<Services['redirectHome']>;
  /** Shown toasts, oldest first; one with an id replaces the one before under that id (react-hot-toast). */
  toasts: { kind: 'blank' | 'success' | 'error'; message: string; id?: string }[];
  logError: Mock<Services['logError']>;
  saveFile: Mock<Services['saveFile']>;
}

export function makeHarness(storageInit: Record<string, string> = {}): Harness {
  const socket = new FakeSocket();
  const storage = new Map(Object.entries(storageInit));
  const toasts: Harness['toasts'] = [];
  const removeToast = (id: string) => {
    const at = toasts.findIndex((t) => t.id === id);
    if (at >= 0) toasts.splice(at, 1);
  };
  const showToast = (toast: Harness['toasts'][number]) => {
    if (toast.id) removeToast(toast.id);
    toasts.push(toast);
  };
  const ads: Harness['ads'] = {
    main: { slots: 1, loaded: 1 },
    popup: { slots: 3, loaded: 3 },
    check: { slots: 1, loaded: 1 },
  };
  const api = fakeApi();
  const navigate = vi.fn<Services['navigate']>();
  const redirectHome = vi.fn<Services['redirectHome']>();
  const logError = vi.fn<Services['logError']>();
  const saveFile = vi.fn<Services['saveFile']>();
  const services: Services = {
    api,
    createSocket: () => socket,
    navigate,
    redirectHome,
    toast: {
      blank: (message) => toasts.push({ kind: 'blank', message }),
      success: (message, options) => showToast({ kind: 'success', message, ...options }),
      error: (message, options) => showToast({ kind: 'error', message, ...options }),
      dismiss: (id) => removeToast(id),
    },
    ads: { count: (slot) => ads[slot] },
    storage: {
      get: (k) => storage.get(k) ?? null,
      set: (k, v) => void storage.set(k, v),
      remove: (k) => void storage.delete(k),
    },
    logError,
    saveFile,
    now: () => Date.now(),
  };
  return { services, api, socket, storage, ads, navigate, redirectHome, toasts, logError, saveFile };
}

/** A real store with every saga running on fake services. */
export function startApp(
  storageInit: Record<string, string> = {},
  setup?: (h: Harness) => void,
  preloaded?: Partial<RootState>,
) {
  const h = makeHarness(storageInit);
  // Mocks that the start-up calls read must be in place before the sagas run.
  setup?.(h);
  const store = createAppStore(h.services, preloaded);
  return { ...h, store, state: () => store.getState() };
}
