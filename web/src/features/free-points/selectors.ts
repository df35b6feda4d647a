import { FREE_POINT_COUNTDOWN_SECONDS } from '@pass/events/kernel';
import type { RootState } from '../../lib/store-types';

/** The /content close button (docs/product.md §2 /content layout): once the page's banner loaded, or while the countdown rests at 30. */
export const selectContentCloseShown = (state: RootState) =>
  state.popup.bannerThree || state.checkseconds.seconds === FREE_POINT_COUNTDOWN_SECONDS;
