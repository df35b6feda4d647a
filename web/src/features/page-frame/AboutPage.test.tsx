import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { SOCIAL_LINK_META } from '@pass/events/kernel';
import AboutPage from './AboutPage';

/** The meta tags the server writes for the set SOCIAL_*_URL settings. */
function serveLinks(links: Record<string, string>) {
  for (const [network, url] of Object.entries(links)) {
    const meta = document.createElement('meta');
    meta.name = SOCIAL_LINK_META;
    meta.content = url;
    meta.dataset.network = network;
    document.head.append(meta);
  }
}

afterEach(() => {
  cleanup();
  document.head.querySelectorAll(`meta[name="${SOCIAL_LINK_META}"]`).forEach((m) => m.remove());
});

describe('About: the social links', () => {
  it('shows the configured links in order and hides the unset one', async () => {
    serveLinks({ youtube: 'https://www.youtube.com/@pass', instagram: 'https://www.instagram.com/pass' });
    render(<AboutPage />);
    await waitFor(() => expect(screen.getAllByRole('link').length).toBeGreaterThan(1));
    const list = screen.getByRole('heading', { name: 'Follow the project' }).nextElementSibling!;
    const links = [...list.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]);
    expect(links).toEqual([
      ['Instagram', 'https://www.instagram.com/pass'],
      ['YouTube', 'https://www.youtube.com/@pass'],
    ]);
  });

  it('shows no social section at all when none is set', async () => {
    render(<AboutPage />);
    await screen.findByRole('link', { name: 'Donate' });
    expect(screen.queryByRole('heading', { name: 'Follow the project' })).toBeNull();
    expect(screen.queryByRole('link', { name: /Instagram|YouTube|Twitter/ })).toBeNull();
  });
});
