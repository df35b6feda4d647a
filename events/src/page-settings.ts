/**
 * Settings the server writes into the app's HTML at run time, so one build (one Docker image)
 * serves any deployment: `<meta name="pass-ad-network" content="<key>" data-host="<host>">` when
 * AD_NETWORK_KEY is set (infra's app shell writes it, the web's ad slots read it); without it the
 * app shows its own house banners.
 */
export const AD_NETWORK_META = 'pass-ad-network';
/** The ad network's host when the page names none (AD_NETWORK_HOST's default). */
export const DEFAULT_AD_NETWORK_HOST = 'www.highperformanceformat.com';
