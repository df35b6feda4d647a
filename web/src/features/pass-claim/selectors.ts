import { maxClaimablePasses } from '@pass/events/kernel';
import type { RootState } from '../../lib/store-types';

/**
 * The amount form's bounds (docs/product.md §2 /content/amount): min 1, max the kernel's maxClaimablePasses.
 * `settled` once both the main data and the member are known; the form waits for it.
 * A new object each call: read it with react-redux's shallowEqual.
 */
export const selectAmountBounds = (state: RootState) => {
  const { available } = state.mainData.data;
  const points = state.user.user.chatCount;
  // Until the figures and the member have arrived (a reload of the page) the bounds are not theirs.
  const settled = state.mainData.loaded && state.user.user.email !== '';
  return { min: 1, max: maxClaimablePasses(available, points), points, available, settled };
};
