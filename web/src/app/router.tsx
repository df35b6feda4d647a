import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { RootLayout } from '../layout/RootLayout';
import { HomePage } from '../pages/HomePage';
import { LoadingOverlay } from '../components/LoadingOverlay';

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
      { index: true, Component: HomePage },
      {
        path: 'content',
        ...page(() => import('../pages/content/ContentLayout')),
        children: [
          { path: 'check', ...page(() => import('../pages/content/CheckPage')) },
          { path: 'about', ...page(() => import('../pages/content/AboutPage')) },
          { path: 'post', ...page(() => import('../pages/content/PostPage')) },
          { path: 'amount', ...page(() => import('../pages/content/AmountPage')) },
          { path: 'join', ...page(() => import('../pages/content/JoinPage')) },
          { path: 'participants', ...page(() => import('../pages/content/ParticipantsPage')) },
          { path: 'registered', ...page(() => import('../pages/content/ParticipantsPage')) },
          { path: 'points', ...page(() => import('../pages/content/PointsPage')) },
          { path: 'certificate', ...page(() => import('../pages/content/CertificatePage')) },
          { path: 'admin-certificate', ...page(() => import('../pages/content/AdminCertificatePage')) },
          { path: 'admin', ...page(() => import('../pages/content/AdminLoginPage')) },
          { path: 'admin/dashboard', ...page(() => import('../pages/content/AdminDashboardPage')) },
        ],
      },
    ],
  },
];

export const createAppRouter = () => createBrowserRouter(routes);
export type AppRouter = ReturnType<typeof createAppRouter>;
