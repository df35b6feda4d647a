import { describe, expect, it } from 'vitest';
import { countAdSlots } from './AdBanner';

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
