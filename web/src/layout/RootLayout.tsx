import { lazy, Suspense, useEffect, useState } from 'react';
import { Outlet, ScrollRestoration, useLocation } from 'react-router-dom';
import { Toaster } from 'react-hot-toast';
import { TOASTS } from '@pass/events/kernel';
import { useAppDispatch, useAppSelector } from '../app/hooks';
import {
  selectCertificateHref,
  selectConnectedUsersText,
  selectDayCounter,
  selectGetPassHref,
  selectGlobalMessagesBadge,
  selectMembersText,
} from '../app/selectors';
import { NavBar } from '../components/NavBar';
import { SideMenu } from '../components/SideMenu';
import { FloatingBar } from '../components/FloatingBar';
import { AdBanner } from '../components/AdBanner';
import { sidebarActions } from '../features/ui/sidebarSlice';
import { chatActions } from '../features/chat/slice';
import { AdBlockNoticeContainer, AdsPopupContainer, CookieNoticeContainer, NewMemberPopupContainer } from './Overlays';

// The chat needs the form rules (zod); it loads when first opened.
const ChatPanel = lazy(() => import('../features/chat/ChatPanel'));

/** The day counter re-reads the clock once a minute. */
function useNow(intervalMs = 60_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}

/** Scrolls to `#anchor` links such as /#sponsors after navigation. */
function useHashScroll() {
  const { hash, pathname } = useLocation();
  useEffect(() => {
    if (!hash) return;
    const el = document.getElementById(hash.slice(1));
    el?.scrollIntoView({ behavior: 'smooth' });
  }, [hash, pathname]);
}

export function RootLayout() {
  const dispatch = useAppDispatch();
  const now = useNow();
  useHashScroll();
  const membersText = useAppSelector(selectMembersText);
  const getPassHref = useAppSelector(selectGetPassHref);
  const certificateHref = useAppSelector(selectCertificateHref);
  const sidebarOpen = useAppSelector((s) => s.sidebar.sidebarStatus);
  const day = useAppSelector((s) => selectDayCounter(s, now));
  const messagesBadge = useAppSelector(selectGlobalMessagesBadge);
  const viewersText = useAppSelector(selectConnectedUsersText);
  const chatOpen = useAppSelector((s) => s.chat.isOpened);
  const links = { membersText, getPassHref, certificateHref };

  return (
    <div className="app">
      <a href="#main" className="skip-link">Skip to content</a>
      <NavBar {...links} menuOpen={sidebarOpen} onMenu={() => dispatch(sidebarActions.sidebarToggled())} />
      <SideMenu {...links} open={sidebarOpen} onClose={() => dispatch(sidebarActions.sidebarClosed())} />
      <AdBlockNoticeContainer />
      <main id="main">
        <Outlet />
      </main>
      <footer className="footer">
        <AdBanner slot="main" index={0} />
        <p className="muted">A student's fun project, funded by ads.</p>
      </footer>
      <FloatingBar day={day} messagesBadge={messagesBadge} viewersText={viewersText} chatOpen={chatOpen}
        onChat={() => dispatch(chatActions.chatToggled())} />
      {chatOpen && (
        <Suspense fallback={null}>
          <ChatPanel />
        </Suspense>
      )}
      <NewMemberPopupContainer />
      <CookieNoticeContainer />
      <AdsPopupContainer />
      <Toaster
        position="top-center"
        toastOptions={{
          blank: { duration: TOASTS.blankMs },
          error: { duration: TOASTS.errorMs },
          success: { duration: TOASTS.successMs },
          loading: { duration: Infinity },
        }}
      />
      <ScrollRestoration />
    </div>
  );
}
