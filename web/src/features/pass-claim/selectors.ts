import { maxClaimablePasses } from '@pass/events/kernel';
import type { RootState } from '../../lib/store-types';

/**
 * The amount form's bounds (docs/product.md §2 /content/amount): min 1, max the kernel's maxClaimablePasses.
 * A new object each call: read it with react-redux's shallowEqual.
 */
export const selectAmountBounds = (state: RootState) => {
  const { available } = state.mainData.data;
  const points = state.user.user.chatCount;
  return { min: 1, max: maxClaimablePasses(available, points), points, available };
};
