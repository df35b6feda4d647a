// Ads (docs/product.md §2 ads popup and ad-block notice, §4 ad checks): the popup and its timers, the
// ad-block check. The ad slot itself is components/AdBanner.tsx; the popup state is lib/state/popup.ts.
import { adBlockSaga, adsPopupSaga } from './sagas';

export { AdBlockNoticeContainer, AdsPopupContainer } from './Overlays';
export const adsSagas = [adBlockSaga, adsPopupSaga];
