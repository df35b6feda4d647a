/// <reference types="vite/client" />

interface ImportMetaEnv {
  // The ad network and the social links are not build settings: the server names them in the page (lib/page-settings.ts).
  readonly VITE_DONATION_URL?: string;
}
