import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { AdBlockNotice, AdsPopup, AD_BLOCK_TEXT } from './AdsPopup';
import { countAdSlots } from './AdBanner';
import { FloatingBar } from './FloatingBar';
import { NewMemberPopup } from './NewMemberPopup';
import { TopMembers } from './TopMembers';
import { Sponsors } from './Sponsors';

afterEach(cleanup);

describe('AdsPopup', () => {
  it('shows 00:SS and three 300×250 slots; the X only once the banners loaded', () => {
    const onClose = vi.fn();
    const { rerender, container } = render(<AdsPopup seconds={7} canClose={false} onClose={onClose} />);
    expect(screen.getByText('00:07')).toBeTruthy();
    expect(container.querySelectorAll('[data-ad-slot="popup"] iframe')).toHaveLength(3);
    expect(container.querySelector('iframe')?.getAttribute('width')).toBe('300');
    expect(screen.queryByRole('button', { name: 'Close ads' })).toBeNull();
    rerender(<AdsPopup seconds={1} canClose onClose={onClose} />);
    fireEvent.click(screen.getByRole('button', { name: 'Close ads' }));
    expect(onClose).toHaveBeenCalled();
  });

  it('the ad-block notice has the spec text', () => {
    render(<AdBlockNotice />);
    expect(screen.getByRole('alert').textContent).toBe(AD_BLOCK_TEXT);
    expect(AD_BLOCK_TEXT).toBe(
      'Oops, it looks like your network connection is slow or your browser is using an ad blocker - please allow ads and refresh the page or try using another browser.',
    );
  });
});

describe('countAdSlots', () => {
  it('counts slots and those holding an iframe', () => {
    document.body.innerHTML = `
      <div data-ad-slot="main"><iframe></iframe></div>
      <div data-ad-slot="main"></div>
      <div data-ad-slot="popup"><iframe data-network="true"></iframe></div>`;
    expect(countAdSlots('main')).toEqual({ slots: 2, loaded: 1 });
    // A network frame counts only once the network put its own iframe inside.
    expect(countAdSlots('popup')).toEqual({ slots: 1, loaded: 0 });
    const inner = document.querySelector<HTMLIFrameElement>('[data-network]')!.contentDocument!;
    inner.body.appendChild(inner.createElement('iframe'));
    expect(countAdSlots('popup')).toEqual({ slots: 1, loaded: 1 });
    expect(countAdSlots('check')).toEqual({ slots: 0, loaded: 0 });
    document.body.innerHTML = '';
  });
});

describe('FloatingBar', () => {
  it('shows the day, the +N message badge and the viewers link', () => {
    const onChat = vi.fn();
    render(
      <MemoryRouter>
        <FloatingBar day={12} messagesBadge="+3" viewersText="1,024" chatOpen={false} onChat={onChat} />
      </MemoryRouter>,
    );
    expect(screen.getByText('Day 12')).toBeTruthy();
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

describe('TopMembers', () => {
  it('shows distinct countries and at most 5, by count descending', () => {
    const top = ['A', 'B', 'C', 'D', 'E', 'F'].map((country, i) => ({ country, users: (i + 1) * 1000 }));
    render(<TopMembers countries={{ distinct: 6, top }} />);
    const items = screen.getAllByRole('listitem').map((li) => li.textContent);
    expect(items).toEqual(['F6,000', 'E5,000', 'D4,000', 'C3,000', 'B2,000']);
    expect(screen.getByText('Best Countries').textContent).toContain('6');
  });
});

describe('Sponsors', () => {
  it('ranks by passes, links the image to the member link, message as tooltip', () => {
    const entry = (rank: number, passes: number, link: string) => ({
      rank, userId: `u${rank}`, fullname: `M${rank}`, country: 'Spain', passes, link, imageUrl: null, message: `msg ${rank}`, priority: '' as const, createdAt: '',
    });
    render(<Sponsors query="" onQuery={() => {}} entries={[entry(2, 5, 'javascript:alert(1)'), entry(1, 9, 'https://example.com')]} />);
    const cards = screen.getAllByRole('listitem');
    expect(cards[0]?.textContent).toContain('#1');
    expect(cards[0]?.getAttribute('title')).toBe('msg 1');
    expect(screen.getByRole('link', { name: "M1's link" }).getAttribute('href')).toBe('https://example.com');
    expect(screen.queryByRole('link', { name: "M2's link" })).toBeNull();
  });
});
