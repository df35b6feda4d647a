import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { popupActions } from '../../lib/state/popup';
import { CookieNotice } from './CookieNotice';
import { NewMemberPopup } from './NewMemberPopup';
import { globalPostActions } from './global-post-slice';

// Small containers, so what they read re-renders only them.

export function CookieNoticeContainer() {
  const dispatch = useAppDispatch();
  const accepted = useAppSelector((state) => state.popup.acceptedCookie);
  return accepted ? null : <CookieNotice onAccept={() => dispatch(popupActions.cookieAccepted())} />;
}

export function NewMemberPopupContainer() {
  const dispatch = useAppDispatch();
  const visible = useAppSelector((state) => state.globalPost.visible);
  const post = useAppSelector((state) => state.globalPost.newGlobalMember);
  if (!visible || !post) return null;
  return <NewMemberPopup post={post} onClose={() => dispatch(globalPostActions.globalPostHidden())} />;
}
