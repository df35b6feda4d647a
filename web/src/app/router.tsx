import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { LoadingOverlay } from '../components/LoadingOverlay';
import { loadAdminDashboardPage, loadAdminLoginPage } from '../features/admin';
import { loadAdminCertificatePage, loadCertificatePage } from '../features/certificate';
import { loadFreePointsPage } from '../features/free-points';
import { loadJoinPage } from '../features/join';
import { loadAmountPage, loadPostPage } from '../features/pass-claim';
import { loadPointsPage } from '../features/points-purchase';
import { RankingSections } from '../features/ranking';
import { loadParticipantsPage } from '../features/registry';
import { HomePage, loadAboutPage } from '../features/site-shell';
import { RootLayout } from './routes/RootLayout';

/** Everything under /content loads on demand, so `/` ships only what it shows. */
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

// No errorElement on purpose: React Router's default screen reads "Unexpected Application Error!" (spec §2).
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
        children: [
          { path: 'check', ...page(loadFreePointsPage) },
          { path: 'about', ...page(loadAboutPage) },
          { path: 'post', ...page(loadPostPage) },
          { path: 'amount', ...page(loadAmountPage) },
          { path: 'join', ...page(loadJoinPage) },
          { path: 'participants', ...page(loadParticipantsPage) },
          { path: 'registered', ...page(loadParticipantsPage) },
          { path: 'points', ...page(loadPointsPage) },
          { path: 'certificate', ...page(loadCertificatePage) },
          { path: 'admin-certificate', ...page(loadAdminCertificatePage) },
          { path: 'admin', ...page(loadAdminLoginPage) },
          { path: 'admin/dashboard', ...page(loadAdminDashboardPage) },
        ],
      },
    ],
  },
];

export const createAppRouter = () => createBrowserRouter(routes);
