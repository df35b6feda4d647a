// First: no eval probe under the Content-Security-Policy (see the module). zod builds its
// parsers when a schema is created, so this must run before any module that creates one.
import '@pass/events/zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { createAppRouter } from './app/router';
import { createAppStore } from './app/store';
import { browserServices } from './app/browserServices';
import './styles.css';

const router = createAppRouter();
const store = createAppStore(browserServices((to, options) => router.navigate(to, options)));

const container = document.getElementById('root');
if (!container) throw new Error('#root is missing from index.html');
createRoot(container).render(
  <StrictMode>
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>
  </StrictMode>,
);
