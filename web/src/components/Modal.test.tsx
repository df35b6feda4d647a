import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Modal } from './Modal';

afterEach(cleanup);

function Page({ open, onEscape }: { open: boolean; onEscape?: () => void }) {
  return (
    <>
      <button type="button">Opener</button>
      {open && (
        <Modal labelledBy="t" className="checkout" onEscape={onEscape}>
          <h2 id="t">Title</h2>
        </Modal>
      )}
    </>
  );
}

describe('Modal', () => {
  it('a native dialog, open, labelled and focused; Escape calls onEscape; focus returns when it goes', () => {
    const onEscape = vi.fn();
    const { rerender } = render(<Page open={false} onEscape={onEscape} />);
    const opener = screen.getByRole('button', { name: 'Opener' });
    opener.focus();
    rerender(<Page open onEscape={onEscape} />);
    const dialog = screen.getByRole('dialog', { name: 'Title' });
    expect(dialog.tagName).toBe('DIALOG');
    expect(dialog.hasAttribute('open')).toBe(true);
    expect(document.activeElement).toBe(dialog);
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(onEscape).toHaveBeenCalledTimes(1);
    rerender(<Page open={false} onEscape={onEscape} />);
    expect(document.activeElement).toBe(opener);
  });

  it('without onEscape, Escape leaves it open', () => {
    render(<Page open />);
    const dialog = screen.getByRole('dialog', { name: 'Title' });
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(dialog.hasAttribute('open')).toBe(true);
  });
});

describe('Modal focus guards', () => {
  it('Tab past the last control comes back to the first; Shift+Tab before the first goes to the last', () => {
    render(
      <Modal labelledBy="t" className="checkout">
        <h2 id="t">Title</h2>
        <button type="button">First</button>
        <button type="button">Last</button>
      </Modal>,
    );
    const [start, end] = Array.from(document.querySelectorAll<HTMLElement>('[data-focus-guard]'));
    const first = screen.getByRole('button', { name: 'First' });
    const last = screen.getByRole('button', { name: 'Last' });
    // Tab from Last lands on the end guard, which sends the focus to First.
    fireEvent.focus(end!, { relatedTarget: last });
    expect(document.activeElement).toBe(first);
    // Shift+Tab from First lands on the start guard, which sends it to Last.
    fireEvent.focus(start!, { relatedTarget: first });
    expect(document.activeElement).toBe(last);
    // Tab from the dialog itself (focused on opening) goes to First, not round to Last.
    fireEvent.focus(start!, { relatedTarget: screen.getByRole('dialog') });
    expect(document.activeElement).toBe(first);
  });
});
