import { useEffect, useRef, type FocusEvent, type ReactNode } from 'react';
import { keepTyping as keepTypingInto, textFieldOf } from './keep-typing';

export interface ModalProps {
  /** The id of the dialog's heading. */
  labelledBy: string;
  className: string;
  /** Escape (or the browser's other close requests) calls this; without it the dialog stays. */
  onEscape?: (() => void) | undefined;
  /**
   * For a dialog that opens by itself: opened over a field being typed in, it keeps the focus on
   * itself (not on an ad frame) and what is typed meanwhile goes into the field when it closes.
   */
  keepTyping?: boolean;
  children: ReactNode;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), iframe, [tabindex]:not([tabindex="-1"])';

/** The dialog's own focusable controls (its two focus guards left out). */
function focusables(dialog: HTMLDialogElement): HTMLElement[] {
  return Array.from(dialog.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => !el.hasAttribute('data-focus-guard'));
}

/** Opens a dialog as a modal: the native top layer, with the rest of the page inert (jsdom has no showModal). */
function openModal(dialog: HTMLDialogElement) {
  if (dialog.open) return;
  if (typeof dialog.showModal === 'function') dialog.showModal();
  else dialog.setAttribute('open', '');
  // Nothing focusable yet (the ads popup's X comes later): the dialog itself takes focus.
  if (!dialog.contains(document.activeElement)) dialog.focus();
}

/**
 * A modal dialog as a native `<dialog>` opened with showModal(): focus moves in and stays (the rest
 * of the page is inert; two focus guards send Tab past the last control back to the first and
 * Shift+Tab before the first to the last, ad frames included, instead of out to the browser), Escape calls `onEscape` where the spec allows closing, and focus returns to
 * where it was when the dialog goes (it is shown while mounted; the parent unmounts it to close).
 */
export function Modal({ labelledBy, className, onEscape, keepTyping = false, children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const keep = useRef(keepTyping);
  const escape = useRef(onEscape);
  escape.current = onEscape;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    let mounted = true;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      // Handled here, so the browser's own close (the cancel event) does not follow.
      e.preventDefault();
      escape.current?.();
    };
    const onCancel = (e: Event) => {
      e.preventDefault();
      escape.current?.();
    };
    // The browser may close a dialog whose cancel was refused too often: shown while mounted.
    const onClose = () => {
      if (mounted) openModal(dialog);
    };
    dialog.addEventListener('keydown', onKey);
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('close', onClose);
    const field = keep.current ? textFieldOf(previous) : null;
    const typing = field ? keepTypingInto(dialog, field) : null;
    openModal(dialog);
    if (typing) dialog.focus();
    return () => {
      mounted = false;
      dialog.removeEventListener('keydown', onKey);
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('close', onClose);
      if (dialog.open && typeof dialog.close === 'function') dialog.close();
      if (previous?.isConnected) previous.focus();
      typing?.finish();
    };
  }, []);

  const wrap = (to: 'first' | 'last') => (e: FocusEvent) => {
    const dialog = ref.current;
    if (!dialog) return;
    const all = focusables(dialog);
    // Tab from the dialog itself (focused on opening) goes to its first control.
    const target = to === 'last' && e.relatedTarget !== dialog ? all.at(-1) : all[0];
    (target ?? dialog).focus();
  };

  return (
    <dialog ref={ref} className={className} aria-labelledby={labelledBy} tabIndex={-1}>
      <span tabIndex={0} data-focus-guard="start" onFocus={wrap('last')} />
      {children}
      <span tabIndex={0} data-focus-guard="end" onFocus={wrap('first')} />
    </dialog>
  );
}
