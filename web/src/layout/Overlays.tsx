import { useAppDispatch, useAppSelector } from '../app/hooks';
import { AdBlockNotice, AdsPopup } from '../components/AdsPopup';
import { CookieNotice } from '../components/CookieNotice';
import { NewMemberPopup } from '../components/NewMemberPopup';
import { popupActions } from '../features/ads/popupSlice';
import { globalPostActions } from '../features/globalPost/slice';

// Small containers, so the popup's once-a-second tick re-renders only what shows it.

export function AdsPopupContainer() {
  const dispatch = useAppDispatch();
  const show = useAppSelector((s) => s.popup.showPopup);
  const seconds = useAppSelector((s) => s.popup.seconds);
  const canClose = useAppSelector((s) => s.popup.bannerTwoLoaded);
  if (!show) return null;
  return <AdsPopup seconds={seconds} canClose={canClose} onClose={() => dispatch(popupActions.adsCloseRequested())} />;
}

export function AdBlockNoticeContainer() {
  const blocked = useAppSelector((s) => s.popup.blockMessage);
  return blocked ? <AdBlockNotice /> : null;
}

export function CookieNoticeContainer() {
  const dispatch = useAppDispatch();
  const accepted = useAppSelector((s) => s.popup.acceptedCookie);
  return accepted ? null : <CookieNotice onAccept={() => dispatch(popupActions.cookieAccepted())} />;
}

export function NewMemberPopupContainer() {
  const dispatch = useAppDispatch();
  const visible = useAppSelector((s) => s.globalPost.visible);
  const post = useAppSelector((s) => s.globalPost.newGlobalMember);
  if (!visible || !post) return null;
  return <NewMemberPopup post={post} onClose={() => dispatch(globalPostActions.globalPostHidden())} />;
}
