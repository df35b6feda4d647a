import { contentPath } from '@pass/events/kernel';
import type { RootState } from '../store-types';

// What every capability reads of the session (lib/state/session.ts): the member, and the
// navigation targets and guards that depend on who is using the site. Apart from the slice, so
// that the slice's state type is all RootState needs of it.

export const selectUser = (s: RootState) => s.user.user;
export const selectIsRegistered = (s: RootState) => s.user.user.email !== '';
export const selectIsMember = (s: RootState) => s.user.user.passes > 0;
export const selectPoints = (s: RootState) => s.user.user.chatCount;
/** Registered, or an id is stored locally so the user is on the way (spec §2 guards). */
export const selectHasUserOrStored = (s: RootState) => s.user.user.email !== '' || s.user.storedId !== '';

// Navigation targets that depend on the user (spec §2 common navigation, home, participants).
/** "Get my pass" and home's "Request Your Pass". */
export const selectGetPassHref = (s: RootState) => (selectIsRegistered(s) ? contentPath('post') : contentPath('join'));
export const selectCertificateHref = (s: RootState) =>
  !selectIsRegistered(s) ? contentPath('join') : selectIsMember(s) ? contentPath('certificate') : contentPath('post');
export const selectJoinButtonHref = (s: RootState) => (selectIsRegistered(s) ? contentPath('check') : contentPath('join'));

/**
 * The admin guard (spec §6): authorized, or an admin id stored locally. The admin slice is
 * features/admin's; only these two fields of it are read here.
 */
export const selectAdminAuthorized = (s: { admin: { authorized: boolean; storedId: string } }) =>
  s.admin.authorized || s.admin.storedId !== '';
