// Free points (docs/product.md §2 /content/check and the /content layout's close button): the 30 s countdown,
// its banner check and the point it earns.
export const loadFreePointsPage = () => import('./FreePointsPage');
export { checkActions, checkReducer, checksecondsActions, checksecondsReducer } from './slice';
export { selectContentCloseShown } from './selectors';
export { OUT_OF_POINTS } from './texts';
export { freePointsSaga } from './sagas';
