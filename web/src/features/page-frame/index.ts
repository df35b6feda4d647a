// The page frame (docs/product.md §2 common navigation, home, about; §1 cookie notice; §4 live events):
// the frame every screen shares and the live connection. What app/ composes:
import { cookieSaga, globalPostSaga, siteSaga } from './sagas';
import { liveSaga } from './live-sagas';

export { PageFrameLayout, type PageFrameLayoutProps } from './PageFrameLayout';
export { HomePage } from './HomePage';
export const loadAboutPage = () => import('./AboutPage');
export const loadNotFoundPage = () => import('./NotFoundPage');
export { sidebarActions, sidebarReducer } from './sidebar-slice';
export { connectedUsersActions, connectedUsersReducer } from './connected-users-slice';
export { globalPostActions, globalPostReducer } from './global-post-slice';
export const pageFrameSagas = [siteSaga, liveSaga, globalPostSaga, cookieSaga];
export { selectConnectedUsersText, selectDayCounter } from './selectors';
