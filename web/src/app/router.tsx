import { CONTENT_PAGES, type ContentPage } from '@pass/events/kernel';
import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { LoadingOverlay } from '../components/LoadingOverlay';
import { loadAdminDashboardPage, loadAdminLoginPage } from '../features/admin';
import { loadAdminCertificatePage, loadCertificatePage } from '../features/certificate';
import { loadFreePointsPage } from '../features/free-points';
import { loadJoinPage } from '../features/join';
import { loadMyDataPage } from '../features/my-data';
import { loadResetPasswordPage } from '../features/password-reset';
import { loadAmountPage, loadPostPage } from '../features/pass-claim';
import { loadProgressPage } from '../features/progress';
import { loadPointsPage } from '../features/points-purchase';
import { RankingSections } from '../features/ranking';
import { loadParticipantsPage } from '../features/registry';
import { HomePage, loadAboutPage, loadNotFoundPage } from '../features/page-frame';
import { RootLayout } from './routes/RootLayout';

/** Everything under /content loads on demand, so `/` ships only what it shows. */
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

/**
 * The page of each path under /content. The paths are the kernel's (`CONTENT_PAGES`), which the
 * server also reads to answer them 200 and any other path 404 (with this app, which shows its
 * not-found page in the site frame: "404 Not Found" and a link home, docs/product.md §2).
 */
type PageLoader = () => Promise<{ default: React.ComponentType }>;

const contentPages: Record<ContentPage, PageLoader> = {
  check: loadFreePointsPage,
  about: loadAboutPage,
  post: loadPostPage,
  amount: loadAmountPage,
  join: loadJoinPage,
  participants: loadParticipantsPage,
  registered: loadParticipantsPage,
  points: loadPointsPage,
  certificate: loadCertificatePage,
  'admin-certificate': loadAdminCertificatePage,
  admin: loadAdminLoginPage,
  'admin/dashboard': loadAdminDashboardPage,
  'my-data': loadMyDataPage,
  'reset-password': loadResetPasswordPage,
  progress: loadProgressPage,
};


// No errorElement on purpose: React Router's default screen reads "Unexpected Application Error!" (docs/product.md §2)
// for a real failure; an unknown path is the frame's not-found page (the last child).
export const routes: RouteObject[] = [
  {
    path: '/',
    Component: RootLayout,
    // Shown while a lazy route of the first URL loads.
    HydrateFallback: LoadingOverlay,
    children: [
      { index: true, element: <HomePage ranking={<RankingSections />} /> },
      {
        path: 'content',
        ...page(() => import('./routes/ContentLayout')),
        children: CONTENT_PAGES.map((path) => ({ path, ...page(contentPages[path]) })),
      },
      { path: '*', ...page(loadNotFoundPage) },
    ],
  },
];

export const createAppRouter = () => createBrowserRouter(routes);
