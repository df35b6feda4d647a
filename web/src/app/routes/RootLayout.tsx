import { lazy, Suspense } from 'react';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { AdBlockNoticeContainer, AdsPopupContainer } from '../../features/ads';
import { chatActions, loadChatPanel, selectChatOpen } from '../../features/chat';
import { PageFrameLayout } from '../../features/page-frame';

// The chat needs the form rules (zod); it loads when first opened.
const ChatPanel = lazy(loadChatPanel);

/** The root route: the page frame, with the chat and the ads in their places. */
export function RootLayout() {
  const dispatch = useAppDispatch();
  const chatOpen = useAppSelector(selectChatOpen);
  return (
    <PageFrameLayout
      chatOpen={chatOpen}
      onChatToggle={() => dispatch(chatActions.chatToggled())}
      chatPanel={
        chatOpen && (
          <Suspense fallback={null}>
            <ChatPanel />
          </Suspense>
        )
      }
      adBlockNotice={<AdBlockNoticeContainer />}
      adsPopup={<AdsPopupContainer />}
    />
  );
}
