/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Third-party ad network key; without it the app shows its own house banners. */
  readonly VITE_AD_NETWORK_KEY?: string;
  /** Host serving the network's `/{key}/invoke.js`. */
  readonly VITE_AD_NETWORK_HOST?: string;
  readonly VITE_DONATION_URL?: string;
  readonly VITE_INSTAGRAM_URL?: string;
  readonly VITE_X_URL?: string;
  readonly VITE_YOUTUBE_URL?: string;
}
