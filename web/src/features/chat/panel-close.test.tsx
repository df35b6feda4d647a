import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { useChatPanelClose } from './panel-close';

afterEach(cleanup);

function Panel({ onClose }: { onClose: () => void }) {
  const panel = useChatPanelClose(onClose);
  return (
    <aside ref={panel.ref} aria-label="Global chat">
      <button type="button" onClick={panel.close}>Close chat</button>
      <input aria-label="Message" />
    </aside>
  );
}

function Frame({ onClose }: { onClose: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>Open chat</button>
      <button type="button">Elsewhere</button>
      {open && <Panel onClose={() => { onClose(); setOpen(false); }} />}
    </>
  );
}

function openPanel(onClose = vi.fn()) {
  render(<Frame onClose={onClose} />);
  const toggle = screen.getByRole('button', { name: 'Open chat' });
  toggle.focus();
  fireEvent.click(toggle);
  return { toggle, onClose };
}

describe('the chat panel closes from the keyboard', () => {
  it('Escape in the panel closes it and gives the focus back to the toggle', () => {
    const { toggle, onClose } = openPanel();
    const input = screen.getByRole('textbox', { name: 'Message' });
    input.focus();
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(toggle);
  });

  it('Escape on the toggle closes it; the X gives the focus back too', () => {
    const { toggle, onClose } = openPanel();
    fireEvent.keyDown(toggle, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    fireEvent.click(toggle);
    const close = screen.getByRole('button', { name: 'Close chat' });
    close.focus();
    fireEvent.click(close);
    expect(onClose).toHaveBeenCalledTimes(2);
    expect(document.activeElement).toBe(toggle);
  });

  it('Escape elsewhere, or one a dialog already handled, leaves it open', () => {
    const { onClose } = openPanel();
    fireEvent.keyDown(screen.getByRole('button', { name: 'Elsewhere' }), { key: 'Escape' });
    const input = screen.getByRole('textbox', { name: 'Message' });
    input.addEventListener('keydown', (e) => e.preventDefault());
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
  });
});
