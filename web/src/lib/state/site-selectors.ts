import { formatFunds, formatNumber } from '../format';
import type { RootState } from '../store-types';

// What the screens show of the site's figures (lib/state/site.ts). Apart from the slices, so that
// their state types are all RootState needs of them.

export const selectMainData = (s: RootState) => s.mainData.data;
export const selectCountries = (s: RootState) => s.mainData.countries;
// Strings, so components compare them by value: no memoizing needed.
export const selectFundsText = (s: RootState) => formatFunds(s.mainData.data.fundsRaised);
export const selectMembersText = (s: RootState) => formatNumber(s.mainData.data.members);
export const selectAvailableText = (s: RootState) => formatNumber(s.mainData.data.available);
export const selectTakenText = (s: RootState) => formatNumber(s.mainData.data.sold);

/** "+N" when above 0 (spec §2 floating bar). */
export const selectGlobalMessagesBadge = (s: RootState) => {
  const n = s.mainData.data.globalMessages;
  return n > 0 ? `+${formatNumber(n)}` : '0';
};
