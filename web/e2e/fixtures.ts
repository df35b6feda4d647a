import type { Page, Route } from 'playwright-core';
import type {
  AdminView,
  ChatHistory,
  CountriesView,
  GlobalPostView,
  MainDataView,
  Page as ListPage,
  RankingEntry,
  RegistryRow,
  UserView,
} from '@pass/events/kernel';

/** Canned answers for the API, so screens render with data before the server exists. */
export const fixtures = {
  mainData: {
    available: 998_765,
    sold: 1_235,
    views: 120_000,
    cpm: 1.5,
    donations: 250,
    startDate: '01/09/2026',
    purchasesUsd: 1_320,
    fundsRaised: 1_750,
    members: 1_234,
    globalMessages: 57,
  } satisfies MainDataView,
  countries: {
    distinct: 14,
    top: [
      { country: 'United States', users: 420 },
      { country: 'Spain', users: 233 },
      { country: 'Mexico', users: 180 },
      { country: 'India', users: 96 },
      { country: 'Germany', users: 41 },
    ],
  } satisfies CountriesView,
  member: {
    id: 'u-ann',
    email: 'ann.smith@example.com',
    priority: 'specialUser',
    chatCount: 130,
    downloads: 1,
    fullname: 'Ann Smith',
    country: 'Spain',
    link: 'https://example.com/ann',
    image: { path: 'ann.svg', public_id: 'ann', url: '/logo.svg' },
    message: 'Freedom for everyone!',
    passes: 12,
    buyed: 5,
    createdAt: '2026-09-03T10:00:00.000Z',
    updatedAt: '2026-09-10T10:00:00.000Z',
  } satisfies UserView,
  admin: { id: 'a-1', email: 'owner@example.com', authorized: true } satisfies AdminView,
};

const names = ['Ann Smith', 'Bob Lee', 'Carla Ruiz', 'Deepak Rao', 'Emma Braun', 'Farah Ali', 'Gus Ortega', 'Hana Sato'];
const countriesOf = ['Spain', 'United States', 'Mexico', 'India', 'Germany', 'Egypt', 'Argentina', 'Japan'];

export const ranking: RankingEntry[] = names.map((fullname, i) => ({
  rank: i + 1,
  userId: i === 0 ? 'u-ann' : `u-${i}`,
  fullname,
  country: countriesOf[i] ?? 'Spain',
  passes: 40 - i * 4,
  link: 'https://example.com',
  imageUrl: i % 3 === 2 ? null : `/certificates/certificate-${(i % 5) + 1}.svg`,
  message: `Hello from ${countriesOf[i]}!`,
  priority: i < 2 ? 'specialUser' : 'normalUser',
  createdAt: `2026-09-${String(3 + i).padStart(2, '0')}T10:00:00.000Z`,
}));

export const registry: RegistryRow[] = [
  ...ranking.map((r) => ({ userId: r.userId, createdAt: r.createdAt, member: r.fullname, passes: r.passes, points: 20 + r.passes, priority: r.priority })),
  { userId: 'u-x', createdAt: '2026-09-12T10:00:00.000Z', member: 'joh*****@mail.com', passes: 0, points: 10, priority: '' },
];

export const chat: ChatHistory = {
  total: 57,
  messages: [
    { id: 'm1', userId: 'u-1', nickname: 'Bob Lee', message: 'Hi everyone!', priority: 'specialUser', sentAt: '2026-09-10T10:00:00.000Z' },
    { id: 'm2', userId: 'u-3', nickname: 'Deepak Rao', message: 'Day 9 and counting', priority: 'normalUser', sentAt: '2026-09-10T10:01:00.000Z' },
  ],
};

export const globalPost: GlobalPostView = {
  user: { id: 'u-1', fullname: 'Bob Lee', country: 'United States', image: { path: 'b', public_id: 'b', url: '/certificates/certificate-2.svg' }, priority: 'specialUser' },
  message: 'Proud to hold my pass!',
  postedAt: '2026-09-10T10:00:00.000Z',
};

const page = <T>(items: T[]): ListPage<T> => ({ total: items.length, page: 1, pageSize: 50, items });

export interface MockOptions {
  /** Answer /api/me and verify-access with the member (otherwise 401). */
  member?: boolean;
  admin?: boolean;
}

/** Routes /api/** to the fixtures and refuses Socket.IO (no server yet). */
export async function mockApi(p: Page, options: MockOptions = {}): Promise<void> {
  const json = (route: Route, body: unknown, status = 200) =>
    route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
  await p.route('**/socket.io/**', (route) => route.abort());
  await p.route('**/api/**', async (route) => {
    const url = new URL(route.request().url());
    const path = url.pathname;
    if (path === '/api/main-data') return json(route, fixtures.mainData);
    if (path === '/api/countries') return json(route, fixtures.countries);
    if (path === '/api/ranking') {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      return json(route, page(ranking.filter((r) => `${r.fullname} ${r.country}`.toLowerCase().includes(q))));
    }
    if (path === '/api/registry') return json(route, page(registry));
    if (path === '/api/admin/projections') {
      return json(route, { position: '1520', headPosition: '1520', lagEvents: 0, lagSeconds: 0, lastError: null, rebuild: { state: 'idle', processed: 0, total: 0, startedAt: null } });
    }
    if (path === '/api/admin/posts') {
      return json(route, page(ranking.map((r, i) => ({ ...r, email: `member${i}@example.com`, points: 20 + i }))));
    }
    if (path === '/api/chat-messages') return json(route, chat);
    if (path === '/api/global-post') return json(route, globalPost);
    if (path === '/api/me' || path.startsWith('/api/verify-access/')) {
      return options.member ? json(route, fixtures.member) : json(route, { error: 'Not signed in' }, 401);
    }
    if (path.startsWith('/api/verify-admin-access/')) {
      return json(route, options.admin ? fixtures.admin : { ...fixtures.admin, authorized: false });
    }
    return json(route, { error: 'Not mocked' }, 404);
  });
}
