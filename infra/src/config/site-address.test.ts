import { describe, expect, it } from 'vitest';
import { parseSettings } from './settings';
import { originsOfSiteAddress } from './site-address';

describe("the site's origins from Caddy's address (SITE_ADDRESS)", () => {
  it('reads a domain as its HTTPS origin, keeps a port or scheme given, and takes several', () => {
    expect(originsOfSiteAddress('example.org')).toEqual(['https://example.org']);
    expect(originsOfSiteAddress('example.org:8443')).toEqual(['https://example.org:8443']);
    expect(originsOfSiteAddress('http://example.org')).toEqual(['http://example.org']);
    expect(originsOfSiteAddress('example.org:80')).toEqual(['http://example.org']);
    expect(originsOfSiteAddress('example.org, www.example.org')).toEqual(['https://example.org', 'https://www.example.org']);
  });

  it('names no origin for an address without one host (behind another TLS terminator, wildcards)', () => {
    for (const address of [':80', ':443', 'http://:8080', '*.example.org', '', undefined]) expect(originsOfSiteAddress(address), String(address)).toEqual([]);
  });

  it('joins the operator\'s ALLOWED_ORIGINS, each origin once', () => {
    expect(parseSettings({ SITE_ADDRESS: 'example.org', ALLOWED_ORIGINS: 'https://example.org,https://admin.example' }).allowedOrigins).toEqual([
      'https://example.org',
      'https://admin.example',
    ]);
    expect(parseSettings({ SITE_ADDRESS: ':80' }).allowedOrigins).toEqual([]);
  });
});
