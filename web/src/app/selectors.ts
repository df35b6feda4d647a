import { createSelector } from '@reduxjs/toolkit';
import { POINTS_PER_PASS } from '@pass/events/kernel';
import type { RootState } from './store';
import { dayCounter, formatFunds, formatNumber } from '../lib/format';

export const selectUser = (s: RootState) => s.user.user;
export const selectIsRegistered = (s: RootState) => s.user.user.email !== '';
export const selectIsMember = (s: RootState) => s.user.user.passes > 0;
export const selectPoints = (s: RootState) => s.user.user.chatCount;
/** Registered, or an id is stored locally so the user is on the way (spec §2 guards). */
export const selectHasUserOrStored = (s: RootState) => s.user.user.email !== '' || s.user.storedId !== '';

export const selectMainData = (s: RootState) => s.mainData.data;
export const selectCountries = (s: RootState) => s.mainData.countries;
export const selectFundsText = createSelector([selectMainData], (d) => formatFunds(d.fundsRaised));
export const selectMembersText = createSelector([selectMainData], (d) => formatNumber(d.members));
export const selectAvailableText = createSelector([selectMainData], (d) => formatNumber(d.available));
export const selectTakenText = createSelector([selectMainData], (d) => formatNumber(d.sold));

/** Whole days since startDate; `now` is passed so the selector stays pure. */
export const selectDayCounter = (s: RootState, now: number) => dayCounter(s.mainData.data.startDate, now);

/** "+N" when above 0 (spec §2 floating bar). */
export const selectGlobalMessagesBadge = (s: RootState) => {
  const n = s.mainData.data.globalMessages;
  return n > 0 ? `+${formatNumber(n)}` : '0';
};

export const selectConnectedUsersText = (s: RootState) => formatNumber(s.connectedUsers.count);

/** Largest passes the amount form accepts: min(available, floor(points / 20)), never below 0. */
export const selectAmountBounds = createSelector([selectMainData, selectPoints], (d, points) => ({
  min: 1,
  max: Math.max(0, Math.min(d.available, Math.floor(points / POINTS_PER_PASS))),
  points,
  available: d.available,
}));

// Navigation targets that depend on the user (spec §2 common navigation, home).
export const selectGetPassHref = (s: RootState) => (selectIsRegistered(s) ? '/content/post' : '/content/join');
export const selectCertificateHref = (s: RootState) =>
  !selectIsRegistered(s) ? '/content/join' : selectIsMember(s) ? '/content/certificate' : '/content/post';
export const selectJoinButtonHref = (s: RootState) => (selectIsRegistered(s) ? '/content/check' : '/content/join');
export const selectRequestPassHref = selectGetPassHref;

export const selectAdminAuthorized = (s: RootState) => s.admin.authorized || s.admin.storedId !== '';
