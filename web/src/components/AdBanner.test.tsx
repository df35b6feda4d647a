import { afterEach, describe, expect, it, vi } from 'vitest';
import { countAdSlots } from './AdBanner';

/** jsdom lays nothing out: frames are given a size by hand (0×0 unless listed). */
function sizeFrames(sized: (frame: HTMLIFrameElement) => boolean) {
  vi.spyOn(HTMLIFrameElement.prototype, 'getBoundingClientRect').mockImplementation(function (this: HTMLIFrameElement) {
    return (sized(this) ? new DOMRect(0, 0, 300, 250) : new DOMRect(0, 0, 0, 0));
  });
}

/** Fills a same-origin frame's document (jsdom gives each iframe an empty one). */
function write(frame: HTMLIFrameElement, html: string, scriptState?: 'loaded' | 'failed') {
  const doc = frame.contentDocument!;
  doc.body.innerHTML = html;
  if (scriptState) doc.documentElement.dataset.adScript = scriptState;
}

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = '';
});

describe('countAdSlots', () => {
  it('a house banner counts once its own document loaded into a frame with a size', () => {
    document.body.innerHTML = `
      <div data-ad-slot="main"><iframe id="a"></iframe></div>
      <div data-ad-slot="main"><iframe id="b"></iframe></div>
      <div data-ad-slot="main"></div>`;
    sizeFrames(() => true);
    // The request was blocked: the iframe element is there, with nothing in it.
    expect(countAdSlots('main')).toEqual({ slots: 3, loaded: 0 });
    write(document.querySelector('#a')!, '<a href="/content/join">Get your free pass today!</a>');
    expect(countAdSlots('main')).toEqual({ slots: 3, loaded: 1 });
    // Hidden by the blocker (no size): not loaded.
    write(document.querySelector('#b')!, '<a href="/content/join">Ad</a>');
    vi.restoreAllMocks();
    sizeFrames((f) => f.id === 'a');
    expect(countAdSlots('main')).toEqual({ slots: 3, loaded: 1 });
    expect(countAdSlots('check')).toEqual({ slots: 0, loaded: 0 });
  });

  it('a network banner counts only when its script loaded and put a sized frame inside', () => {
    document.body.innerHTML = `<div data-ad-slot="popup"><iframe data-network="true"></iframe></div>`;
    const frame = document.querySelector<HTMLIFrameElement>('[data-network]')!;
    sizeFrames(() => true);
    expect(countAdSlots('popup')).toEqual({ slots: 1, loaded: 0 });
    // The script was refused: an empty frame left in place does not count.
    write(frame, '<iframe></iframe>', 'failed');
    expect(countAdSlots('popup')).toEqual({ slots: 1, loaded: 0 });
    write(frame, '<iframe></iframe>', 'loaded');
    // The frame's document has its own window (and prototypes): the ad's frame is sized by hand.
    const ad = frame.contentDocument!.querySelector('iframe')!;
    ad.getBoundingClientRect = () => new DOMRect(0, 0, 300, 250);
    expect(countAdSlots('popup')).toEqual({ slots: 1, loaded: 1 });
    // Loaded but the ad's frame has no size (collapsed by a blocker): not loaded.
    ad.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
    expect(countAdSlots('popup')).toEqual({ slots: 1, loaded: 0 });
  });
});
