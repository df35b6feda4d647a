import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { popupActions } from '../../lib/state/popup';
import { AdBlockNotice, AdsPopup } from './AdsPopup';

// Small containers, so the popup's once-a-second tick re-renders only what shows it.

export function AdsPopupContainer() {
  const dispatch = useAppDispatch();
  const show = useAppSelector((state) => state.popup.showPopup);
  const seconds = useAppSelector((state) => state.popup.seconds);
  const canClose = useAppSelector((state) => state.popup.bannerTwoLoaded);
  if (!show) return null;
  return <AdsPopup seconds={seconds} canClose={canClose} onClose={() => dispatch(popupActions.adsCloseRequested())} />;
}

export function AdBlockNoticeContainer() {
  const blocked = useAppSelector((state) => state.popup.blockMessage);
  return blocked ? <AdBlockNotice /> : null;
}
