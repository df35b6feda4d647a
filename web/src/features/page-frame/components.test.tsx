import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { FloatingBar } from './FloatingBar';
import { NewMemberPopup } from './NewMemberPopup';

afterEach(cleanup);

describe('FloatingBar', () => {
  it('shows the day (a link to the progress page), the +N message badge and the viewers link', () => {
    const onChat = vi.fn();
    render(
      <MemoryRouter>
        <FloatingBar day={12} messagesBadge="+3" viewersText="1,024" chatOpen={false} onChat={onChat} />
      </MemoryRouter>,
    );
    expect(screen.getByRole('link', { name: 'Day 12: progress toward the goal' }).getAttribute('href')).toBe('/content/progress');
    fireEvent.click(screen.getByRole('button', { name: 'Open chat, +3 messages' }));
    expect(onChat).toHaveBeenCalled();
    expect(screen.getByRole('link', { name: '1,024 connected users' }).getAttribute('href')).toBe('/content/registered');
    expect(screen.getByRole('link', { name: 'Donate' }).getAttribute('target')).toBe('_blank');
  });
});

describe('NewMemberPopup', () => {
  it('shows the image, "Name says:" and the message; X closes', () => {
    const onClose = vi.fn();
    render(
      <NewMemberPopup
        post={{ user: { id: 'u', fullname: 'Bob', country: 'Spain', image: { path: 'p', public_id: 'p', url: '/u/p.webp' }, priority: '' }, message: 'Hi all', postedAt: '' }}
        onClose={onClose}
      />,
    );
    expect(screen.getByText('Bob says:')).toBeTruthy();
    expect(screen.getByText('Hi all')).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Bob' }).getAttribute('src')).toBe('/u/p.webp');
    fireEvent.click(screen.getByRole('button', { name: 'Close new member message' }));
    expect(onClose).toHaveBeenCalled();
  });
});
