import { afterEach, describe, expect, it } from 'vitest';
import { adNetworkOfPage } from './page-settings';

afterEach(() => {
  document.head.innerHTML = '';
});

describe('the ad network of this deployment, as the server wrote it into the page', () => {
  it('is read from the meta tag: key and host', () => {
    document.head.innerHTML = '<meta name="pass-ad-network" content="abc123" data-host="ads.example.net" />';
    expect(adNetworkOfPage()).toEqual({ key: 'abc123', host: 'ads.example.net' });
  });

  it("falls back to the network's usual host, and to house banners without a key", () => {
    document.head.innerHTML = '<meta name="pass-ad-network" content="abc123" />';
    expect(adNetworkOfPage()).toEqual({ key: 'abc123', host: 'www.highperformanceformat.com' });
    document.head.innerHTML = '<meta name="pass-ad-network" content=" " />';
    expect(adNetworkOfPage()).toBeUndefined();
    document.head.innerHTML = '';
    expect(adNetworkOfPage()).toBeUndefined();
  });
});
