/** External links; set at build time so the owner can change them without code. */
export const DONATION_URL: string = import.meta.env.VITE_DONATION_URL || 'https://www.paypal.com/paypalme/freedompass';
export const SOCIAL_LINKS: { name: string; url: string }[] = [
  { name: 'Instagram', url: import.meta.env.VITE_INSTAGRAM_URL || 'https://www.instagram.com/' },
  { name: 'X (Twitter)', url: import.meta.env.VITE_X_URL || 'https://x.com/' },
  { name: 'YouTube', url: import.meta.env.VITE_YOUTUBE_URL || 'https://www.youtube.com/' },
];
