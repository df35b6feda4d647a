import { AD_NETWORK_META, DEFAULT_AD_NETWORK_HOST, SOCIAL_LINK_META, SOCIAL_NETWORKS, type SocialLink } from '@pass/events/kernel';

export interface AdNetworkSettings {
  key: string;
  host: string;
}

/**
 * The ad network this deployment uses, as the server wrote it into the page (AD_NETWORK_KEY and
 * AD_NETWORK_HOST, read where the image runs); undefined without one: house banners.
 */
export function adNetworkOfPage(doc: Document = document): AdNetworkSettings | undefined {
  const meta = doc.querySelector<HTMLMetaElement>(`meta[name="${AD_NETWORK_META}"]`);
  const key = meta?.content.trim();
  if (!meta || !key) return undefined;
  return { key, host: meta.dataset.host || DEFAULT_AD_NETWORK_HOST };
}

/** A social link as the about page shows it. */
export interface ShownSocialLink extends SocialLink {
  name: string;
}

/**
 * The project's social links, as the server wrote them into the page (SOCIAL_*_URL, read where
 * the image runs), in SOCIAL_NETWORKS' order; a network the page names no address for is left out.
 */
export function socialLinksOfPage(doc: Document = document): ShownSocialLink[] {
  const metas = [...doc.querySelectorAll<HTMLMetaElement>(`meta[name="${SOCIAL_LINK_META}"]`)];
  return SOCIAL_NETWORKS.flatMap(({ id, name }) => {
    const url = metas.find((meta) => meta.dataset.network === id)?.content.trim();
    return url && /^https:\/\//.test(url) ? [{ network: id, name, url }] : [];
  });
}
