import { AD_NETWORK_META, DEFAULT_AD_NETWORK_HOST } from '@pass/events/kernel';

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
