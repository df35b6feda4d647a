// Claiming a pass, "Get my pass" (docs/product.md §2 /content/post then /content/amount, §4 pass claim):
// the certificate post form, how many passes, and the claim saga.
export const loadPostPage = () => import('./PostPage');
export const loadAmountPage = () => import('./AmountPage');
export { passClaimSaga } from './sagas';
export type { PostFormState } from './post-form';
export { POST_FORM_RETURNED } from './post-form-return';
