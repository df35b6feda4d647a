// Buying points (docs/product.md §2 /content/points, §4 payment): purchase cards, the checkout panel with
// PayPal or the simulated provider, and the purchase saga.
export const loadPointsPage = () => import('./PointsPage');
export { purchaseReducer } from './slice';
export { NON_SERIALIZABLE_PURCHASE_ACTIONS } from './actions';
export { purchaseSaga } from './sagas';
