/**
 * Settings the server writes into the app's HTML at run time, so one build (one Docker image)
 * serves any deployment: `<meta name="pass-ad-network" content="<key>" data-host="<host>">` when
 * AD_NETWORK_KEY is set (infra's app shell writes it, the web's ad slots read it); without it the
 * app shows its own house banners.
 */
export const AD_NETWORK_META = 'pass-ad-network';
/** The ad network's host when the page names none (AD_NETWORK_HOST's default). */
export const DEFAULT_AD_NETWORK_HOST = 'www.highperformanceformat.com';

/**
 * The project's social links on the about page, each written by the server as
 * `<meta name="pass-social-link" content="<url>" data-network="<id>">` when its setting is set
 * (SOCIAL_INSTAGRAM_URL, SOCIAL_X_URL, SOCIAL_YOUTUBE_URL); a network without one is not shown.
 */
export const SOCIAL_LINK_META = 'pass-social-link';
/** The networks the about page may link to, in its order, with the name it shows. */
export const SOCIAL_NETWORKS = [
  { id: 'instagram', name: 'Instagram' },
  { id: 'x', name: 'X (Twitter)' },
  { id: 'youtube', name: 'YouTube' },
] as const;
export type SocialNetworkId = (typeof SOCIAL_NETWORKS)[number]['id'];
export interface SocialLink {
  network: SocialNetworkId;
  url: string;
}
