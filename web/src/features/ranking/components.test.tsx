import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { Sponsors } from './Sponsors';
import { TopMembers } from './TopMembers';

afterEach(cleanup);

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
