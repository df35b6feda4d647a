import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { AdBlockNotice, AdsPopup, AD_BLOCK_TEXT } from './AdsPopup';

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
