// Progress toward the goal (docs/product.md §2 /content/progress): passes per day against the pace.
export const loadProgressPage = () => import('./ProgressPage');
export { progressActions, progressReducer } from './slice';
export { progressSaga } from './sagas';
