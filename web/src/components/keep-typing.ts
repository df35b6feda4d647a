/**
 * Typing carried across a dialog that opens by itself (the ads popup, on its timer) while the
 * member is typing in a field: the dialog takes the focus, so the keys would go nowhere. What is
 * typed while the dialog itself holds the focus is kept and typed into the field when the focus
 * comes back to it (components/Modal.tsx, `keepTyping`).
 */

/** A field the member types text into. */
export type TextField = HTMLInputElement | HTMLTextAreaElement;

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'url', 'tel', 'password', 'email']);

/** The element as a text field being typed in, or null (a button, a link, a read-only field...). */
export function textFieldOf(el: Element | null): TextField | null {
  const field = el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && TEXT_INPUT_TYPES.has(el.type)) ? el : null;
  return field && !field.readOnly && !field.disabled ? field : null;
}

/** What was typed: the text, and the Backspaces beyond it (they delete in the field). */
export interface Typed {
  text: string;
  deletions: number;
}

/**
 * What the key adds to `typed`, or false when it is not typing (Tab, Escape, shortcuts, arrows,
 * and Enter in a one-line field: it would submit, and the member, seeing the text back, sends it).
 */
export function addKey(typed: Typed, e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'isComposing'>, multiline: boolean): boolean {
  if (e.isComposing || e.metaKey || (e.ctrlKey && !e.altKey)) return false;
  if (e.key === 'Backspace') {
    if (typed.text) typed.text = Array.from(typed.text).slice(0, -1).join('');
    else typed.deletions++;
    return true;
  }
  const char = e.key === 'Enter' && multiline ? '\n' : e.key;
  if (Array.from(char).length !== 1) return false;
  typed.text += char;
  return true;
}

/** Sets the value past React's own value tracking, so that the input event reaches its onChange. */
function setNativeValue(field: TextField, value: string) {
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field) as object, 'value')?.set;
  if (setter) setter.call(field, value);
  else field.value = value;
}

/** Types into the field at its caret (at its end for an e-mail field, which has none), within its maxlength. */
export function typeInto(field: TextField, typed: Typed) {
  const { value } = field;
  let start = field.selectionStart ?? value.length;
  const end = field.selectionEnd ?? value.length;
  // A Backspace deletes the selection first, then one character each.
  const back = start === end ? typed.deletions : Math.max(0, typed.deletions - 1);
  start = Math.max(0, start - back);
  const room = field.maxLength >= 0 ? field.maxLength - (value.length - (end - start)) : Infinity;
  const text = Array.from(typed.text).slice(0, Math.max(0, room)).join('');
  setNativeValue(field, value.slice(0, start) + text + value.slice(end));
  if (field.selectionStart !== null) field.setSelectionRange(start + text.length, start + text.length);
  field.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
}

/**
 * Keeps the typing keys that reach the dialog itself (once the member moves into it, with Tab or
 * a click, the keys are the dialog's again). finish(): types them into the field if the focus is
 * back there, and stops listening.
 */
export function keepTyping(dialog: HTMLElement, field: TextField): { finish(): void } {
  const typed: Typed = { text: '', deletions: 0 };
  const multiline = field instanceof HTMLTextAreaElement;
  const onKey = (e: KeyboardEvent) => {
    if (e.target === dialog && addKey(typed, e, multiline)) e.preventDefault();
  };
  dialog.addEventListener('keydown', onKey);
  return {
    finish() {
      dialog.removeEventListener('keydown', onKey);
      if (document.activeElement === field && (typed.text || typed.deletions)) typeInto(field, typed);
    },
  };
}
