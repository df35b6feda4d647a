import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { popupActions } from '../../lib/state/popup';
import { CookieNotice } from './CookieNotice';
import { NewMemberPopup } from './NewMemberPopup';
import { globalPostActions } from './global-post-slice';

// Small containers, so what they read re-renders only them.

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
