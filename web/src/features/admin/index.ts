// The admin (docs/product.md §2 /content/admin and /content/admin/dashboard, Spanish UI): login, the
// dashboard and their sagas. The admin guard other capabilities read is lib/state/session.ts's.
export const loadAdminLoginPage = () => import('./AdminLoginPage');
export const loadAdminDashboardPage = () => import('./AdminDashboardPage');
export { adminActions, adminReducer } from './slice';
export { adminSaga } from './sagas';
export { timeMachineReducer } from './time-machine/replays-slice';
