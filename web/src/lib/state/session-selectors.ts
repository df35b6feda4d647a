import { contentPath } from '@pass/events/kernel';
import type { RootState } from '../store-types';
import { resetEndsThisSession } from './session';

// What every capability reads of the session (lib/state/session.ts): the member, and the
// navigation targets and guards that depend on who is using the site. Apart from the slice, so
// that the slice's state type is all RootState needs of it.

export const selectUser = (state: RootState) => state.user.user;
export const selectIsRegistered = (state: RootState) => state.user.user.email !== '';
export const selectIsMember = (state: RootState) => state.user.user.passes > 0;
export const selectPoints = (state: RootState) => state.user.user.chatCount;
/** Registered, or an id is stored locally so the user is on the way (docs/product.md §2 guards). */
export const selectHasUserOrStored = (state: RootState) => state.user.user.email !== '' || state.user.storedId !== '';
/** A mailed link's new password is being set on this device (the live notice of it is no news here). */
export const selectResetUnderWayHere = (state: RootState) => state.user.resettingHere !== '';
/** …and it is for the member signed in here, so it ends this session too. */
export const selectResetEndsThisSession = (state: RootState) => resetEndsThisSession(state.user);

// Navigation targets that depend on the user (docs/product.md §2 common navigation, home, participants).
/** "Get my pass" and home's "Request Your Pass". */
export const selectGetPassHref = (state: RootState) => (selectIsRegistered(state) ? contentPath('post') : contentPath('join'));
export const selectCertificateHref = (state: RootState) =>
  !selectIsRegistered(state) ? contentPath('join') : selectIsMember(state) ? contentPath('certificate') : contentPath('post');
export const selectJoinButtonHref = (state: RootState) => (selectIsRegistered(state) ? contentPath('check') : contentPath('join'));

/**
 * The admin guard (docs/product.md §6): authorized, or an admin id stored locally. The admin slice is
 * features/admin's; only these two fields of it are read here.
 */
export const selectAdminAuthorized = (state: { admin: { authorized: boolean; storedId: string } }) =>
  state.admin.authorized || state.admin.storedId !== '';
