/**
 * External links; set at build time so the owner can change them without code. The social links
 * are run-time settings instead (SOCIAL_*_URL, lib/page-settings.ts).
 */
export const DONATION_URL: string = import.meta.env.VITE_DONATION_URL || 'https://www.paypal.com/paypalme/freedompass';
