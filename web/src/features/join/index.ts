// Join (docs/product.md §2 /content/join, §4): sign-in or registration, the stored member on start, logout.
// The member's state itself is shared by every capability (lib/state/session.ts).
export const loadJoinPage = () => import('./JoinPage');
export { joinSaga } from './sagas';
