/**
 * The browser origins of a Caddy site address (SITE_ADDRESS, infra/deploy/Caddyfile), for the
 * CSRF allow-list. Caddy's forms: `example.org` (HTTPS), `example.org:8443`, `http://example.org`,
 * several separated by commas or spaces, and addresses with no host such as `:80` (any host,
 * behind another TLS terminator) or `*.example.org`. Those name no one origin: they add nothing,
 * and the site's own origin is still recognised by its Host header.
 */
export function originsOfSiteAddress(address: string | undefined): string[] {
  if (!address) return [];
  const origins = new Set<string>();
  for (const part of address.split(/[\s,]+/).filter(Boolean)) {
    const origin = originOf(part);
    if (origin) origins.add(origin);
  }
  return [...origins];
}

function originOf(part: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(part) ? part : `${/:80$/.test(part) ? 'http' : 'https'}://${part}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    // `:80`, `http://:8080`: no host to name.
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!url.hostname || url.hostname.includes('*')) return undefined;
  return url.origin;
}
