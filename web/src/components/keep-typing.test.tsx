import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { addKey, typeInto, type Typed } from './keep-typing';
import { Modal } from './Modal';

afterEach(cleanup);

const key = (k: string, mods: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, isComposing: false, ...mods });

describe('addKey', () => {
  it('keeps characters and spaces, takes back with Backspace, counts Backspaces beyond', () => {
    const typed: Typed = { text: '', deletions: 0 };
    for (const k of ['Backspace', 'a', ' ', 'b', 'Backspace', 'é']) expect(addKey(typed, key(k), false)).toBe(true);
    expect(typed).toEqual({ text: 'a é', deletions: 1 });
  });

  it('leaves Tab, Escape, arrows, shortcuts and a one-line Enter to the dialog; a new line in a text area', () => {
    const typed: Typed = { text: '', deletions: 0 };
    for (const k of ['Tab', 'Escape', 'ArrowLeft', 'Shift']) expect(addKey(typed, key(k), false)).toBe(false);
    expect(addKey(typed, key('c', { ctrlKey: true }), false)).toBe(false);
    expect(addKey(typed, key('v', { metaKey: true }), false)).toBe(false);
    expect(addKey(typed, key('Enter'), false)).toBe(false);
    expect(addKey(typed, key('Enter'), true)).toBe(true);
    expect(typed.text).toBe('\n');
  });
});

describe('typeInto', () => {
  it('at the caret, after the Backspaces, within maxlength', () => {
    const input = document.createElement('input');
    input.maxLength = 8;
    input.value = 'Hello!';
    input.setSelectionRange(5, 5);
    const onInput = vi.fn();
    input.addEventListener('input', onInput);
    typeInto(input, { text: ' world', deletions: 1 });
    expect(input.value).toBe('Hell wo!');
    expect(input.selectionStart).toBe(7);
    expect(onInput).toHaveBeenCalledTimes(1);
  });

  it('an e-mail field (no caret) gets it at its end', () => {
    const input = document.createElement('input');
    input.type = 'email';
    input.value = 'ann@example.co';
    typeInto(input, { text: 'm', deletions: 0 });
    expect(input.value).toBe('ann@example.com');
  });
});

function Form({ open, onChange }: { open: boolean; onChange: (value: string) => void }) {
  return (
    <>
      <label htmlFor="m">Message</label>
      <textarea id="m" onChange={(e) => onChange(e.target.value)} />
      {open && (
        <Modal labelledBy="t" className="ads-popup" keepTyping>
          <h2 id="t">Ads</h2>
          <button type="button">Inside</button>
        </Modal>
      )}
    </>
  );
}

describe('Modal keepTyping', () => {
  it('what is typed while it is open goes into the field it opened over, and React hears it', () => {
    const onChange = vi.fn();
    const { rerender } = render(<Form open={false} onChange={onChange} />);
    const field = screen.getByLabelText<HTMLTextAreaElement>('Message');
    field.focus();
    fireEvent.change(field, { target: { value: 'The quick ' } });
    rerender(<Form open onChange={onChange} />);
    const dialog = screen.getByRole('dialog', { name: 'Ads' });
    expect(document.activeElement).toBe(dialog);
    for (const k of 'brown fox') fireEvent.keyDown(dialog, { key: k });
    fireEvent.keyDown(dialog, { key: 'Enter' });
    // Keys for a control of the dialog are its own.
    fireEvent.keyDown(screen.getByRole('button', { name: 'Inside' }), { key: 'x' });
    rerender(<Form open={false} onChange={onChange} />);
    expect(document.activeElement).toBe(field);
    expect(field.value).toBe('The quick brown fox\n');
    expect(onChange).toHaveBeenLastCalledWith('The quick brown fox\n');
  });

  it('without a field being typed in, nothing is kept', () => {
    const { rerender } = render(<Form open={false} onChange={() => {}} />);
    rerender(<Form open onChange={() => {}} />);
    fireEvent.keyDown(screen.getByRole('dialog', { name: 'Ads' }), { key: 'a' });
    rerender(<Form open={false} onChange={() => {}} />);
    expect(screen.getByLabelText<HTMLTextAreaElement>('Message').value).toBe('');
  });
});
