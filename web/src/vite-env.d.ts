/// <reference types="vite/client" />

interface ImportMetaEnv {
  // The ad network is not a build setting: the server names it in the page (lib/page-settings.ts).
  readonly VITE_DONATION_URL?: string;
  readonly VITE_INSTAGRAM_URL?: string;
  readonly VITE_X_URL?: string;
  readonly VITE_YOUTUBE_URL?: string;
}
