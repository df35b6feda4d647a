import { useCallback, useEffect, useRef } from 'react';

/**
 * How the chat panel closes from the keyboard: Escape from inside it, or from what opened it (the
 * chat toggle keeps the focus when the panel opens, so the virtual keyboard of a phone does not
 * pop up); Escape and the panel's X give the focus back to what opened it.
 */
export function useChatPanelClose(onClose: () => void) {
  const ref = useRef<HTMLElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const closing = useRef(onClose);
  closing.current = onClose;

  const close = useCallback(() => {
    const back = opener.current;
    closing.current();
    if (back?.isConnected && back !== document.body) back.focus();
  }, []);

  useEffect(() => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const onKey = (e: KeyboardEvent) => {
      // A dialog above (the ads popup, the checkout) handles its own Escape first.
      if (e.key !== 'Escape' || e.defaultPrevented || !(e.target instanceof Node)) return;
      if (!ref.current?.contains(e.target) && e.target !== opener.current) return;
      e.preventDefault();
      close();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [close]);

  return { ref, close };
}
