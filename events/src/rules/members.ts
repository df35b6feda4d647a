/** Members (docs/product.md §2 join and registry): what a new member starts with and how others see an e-mail. Browser-safe. */

/** Points a member has on joining. */
export const NEW_USER_POINTS = 10;

/**
 * One account per e-mail, whatever its case or surrounding spaces: the join form, the card's
 * "must match the one registered" check and the login limits compare e-mails in this form.
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * First 3 characters, stars for the rest of the local part (at least 3), then the domain
 * (docs/product.md §2 registry).
 */
export function maskEmail(email: string): string {
  const at = email.indexOf('@');
  if (at < 0) return email.slice(0, 3) + '*'.repeat(Math.max(0, email.length - 3));
  const local = email.slice(0, at);
  const shown = local.slice(0, 3);
  return `${shown}${'*'.repeat(Math.max(3, local.length - shown.length))}${email.slice(at)}`;
}

/**
 * Whether a member's card is on the site: posted and neither deleted by the admin nor erased
 * (both empty it). The post form requires a name, so a card has one. The admin's posts are these.
 */
export function hasPostedCard(card: { fullname: string }): boolean {
  return card.fullname !== '';
}
