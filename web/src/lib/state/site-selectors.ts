import { formatFunds, formatNumber } from '../format';
import type { RootState } from '../store-types';

// What the screens show of the site's figures (lib/state/site.ts). Apart from the slices, so that
// their state types are all RootState needs of them.

export const selectMainData = (state: RootState) => state.mainData.data;
export const selectCountries = (state: RootState) => state.mainData.countries;
// Strings, so components compare them by value: no memoizing needed.
export const selectFundsText = (state: RootState) => formatFunds(state.mainData.data.fundsRaised);
export const selectMembersText = (state: RootState) => formatNumber(state.mainData.data.members);
export const selectAvailableText = (state: RootState) => formatNumber(state.mainData.data.available);
export const selectTakenText = (state: RootState) => formatNumber(state.mainData.data.sold);

/** "+N" when above 0 (docs/product.md §2 floating bar). */
export const selectGlobalMessagesBadge = (state: RootState) => {
  const n = state.mainData.data.globalMessages;
  return n > 0 ? `+${formatNumber(n)}` : '0';
};
