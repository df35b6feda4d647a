import { useEffect, type ReactNode } from 'react';
import { Outlet, ScrollRestoration, useLocation } from 'react-router-dom';
import { TOASTS } from '@pass/events/kernel';
import { AdBanner } from '../../components/AdBanner';
import { useNow } from '../../lib/hooks';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { selectCertificateHref, selectGetPassHref, selectIsRegistered } from '../../lib/state/session-selectors';
import { selectGlobalMessagesBadge, selectMembersText } from '../../lib/state/site-selectors';
import { NavBar } from './NavBar';
import { SideMenu } from './SideMenu';
import { FloatingBar } from './FloatingBar';
import { DockToasts } from './DockToasts';
import { CookieNoticeContainer, NewMemberPopupContainer } from './Overlays';
import { sidebarActions } from './sidebar-slice';
import { selectConnectedUsersText, selectDayCounter } from './selectors';

/** Scrolls to `#anchor` links such as /#sponsors after navigation. */
function useHashScroll() {
  const { hash, pathname } = useLocation();
  useEffect(() => {
    if (!hash) return;
    const el = document.getElementById(hash.slice(1));
    el?.scrollIntoView({ behavior: 'smooth' });
  }, [hash, pathname]);
}

/** What other capabilities put into the shell (app/routes/RootLayout.tsx fills these). */
export interface PageFrameLayoutProps {
  /** The floating bar's chat toggle. */
  chatOpen: boolean;
  onChatToggle: () => void;
  /** The chat panel, while open. */
  chatPanel: ReactNode;
  /** The ad-block notice, under the navigation. */
  adBlockNotice: ReactNode;
  /** The full-screen ads popup, above everything else. */
  adsPopup: ReactNode;
}

const TOAST_OPTIONS = {
  blank: { duration: TOASTS.blankMs },
  error: { duration: TOASTS.errorMs },
  success: { duration: TOASTS.successMs },
  loading: { duration: Infinity },
};

/**
 * Every screen's frame (docs/product.md §2 common navigation): navigation, side menu, footer, floating bar, toasts.
 * The floating bar, the toasts and the newest-post popup live in the sticky top dock with the navigation:
 * they take room of their own (the page moves down while they show) instead of covering its controls.
 */
export function PageFrameLayout({ chatOpen, onChatToggle, chatPanel, adBlockNotice, adsPopup }: PageFrameLayoutProps) {
  const dispatch = useAppDispatch();
  const now = useNow();
  useHashScroll();
  const membersText = useAppSelector(selectMembersText);
  const getPassHref = useAppSelector(selectGetPassHref);
  const certificateHref = useAppSelector(selectCertificateHref);
  const sidebarOpen = useAppSelector((state) => state.sidebar.sidebarStatus);
  const day = useAppSelector((state) => selectDayCounter(state, now));
  const messagesBadge = useAppSelector(selectGlobalMessagesBadge);
  const viewersText = useAppSelector(selectConnectedUsersText);
  const registered = useAppSelector(selectIsRegistered);
  const links = { membersText, getPassHref, certificateHref };

  return (
    <div className="app">
      <a href="#main" className="skip-link">Skip to content</a>
      <div className="top-dock">
        <NavBar {...links} menuOpen={sidebarOpen} onMenu={() => dispatch(sidebarActions.sidebarToggled())}
          live={<FloatingBar day={day} messagesBadge={messagesBadge} viewersText={viewersText} chatOpen={chatOpen} onChat={onChatToggle} />} />
        <div className="dock-notices">
          <DockToasts options={TOAST_OPTIONS} />
          <NewMemberPopupContainer />
        </div>
      </div>
      <SideMenu {...links} yourDataShown={registered} open={sidebarOpen} onClose={() => dispatch(sidebarActions.sidebarClosed())} />
      {adBlockNotice}
      <CookieNoticeContainer />
      <main id="main">
        <Outlet />
      </main>
      <footer className="footer">
        <AdBanner slot="main" index={0} />
        <p className="muted">A student's fun project, funded by ads.</p>
      </footer>
      {chatPanel}
      {adsPopup}
      <ScrollRestoration />
    </div>
  );
}
