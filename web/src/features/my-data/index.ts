// "Your data" (docs/product.md §2 /content/my-data): a member downloads what the site keeps,
// changes the password, signs out everywhere or deletes the account. The side menu and the
// participants header link here.
export const loadMyDataPage = () => import('./MyDataPage');
export { myDataActions, myDataReducer } from './slice';
export { myDataSaga } from './sagas';
