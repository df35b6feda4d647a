import { useEffect, useRef, useState, useSyncExternalStore } from 'react';

/**
 * Modal behaviour for a dialog: focus moves into it when it opens and back when it closes,
 * and Escape calls `onEscape` (when given).
 */
export function useDialog<T extends HTMLElement>(onEscape?: () => void) {
  const ref = useRef<T>(null);
  const escape = useRef(onEscape);
  escape.current = onEscape;
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    ref.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && escape.current) escape.current();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, []);
  return ref;
}

/** Sets the document title while a page is shown. */
export function useTitle(title: string) {
  useEffect(() => {
    const previous = document.title;
    document.title = title;
    return () => {
      document.title = previous;
    };
  }, [title]);
}

const noSubscription = () => () => {};

/**
 * False while React hydrates the build-time HTML (and on the server), true after: what cannot be
 * known at build time (the deployment's ad network, say) renders only once this is true, so the
 * first client render matches the HTML. A page rendered in the browser from scratch is true at once.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/** The clock, read again every `intervalMs` (a minute): enough for what counts days. */
export function useNow(intervalMs = 60_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}
