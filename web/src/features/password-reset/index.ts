// Forgotten passwords (docs/product.md §2 /content/reset-password): the page asks for the e-mail
// (join's "Forgot your password?" link opens it) and, opened from the mailed link (#token=…), sets
// a new password.
export const loadResetPasswordPage = () => import('./ResetPasswordPage');
export { passwordResetActions, passwordResetReducer } from './slice';
export { passwordResetSaga } from './sagas';
