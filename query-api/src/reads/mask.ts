/**
 * First 3 characters, stars for the rest of the local part (at least 3), then the domain
 * (spec §2 registry); the same rule as the web's maskEmail.
 */
export function maskEmail(email: string): string {
  const at = email.indexOf('@');
  if (at < 0) return email.slice(0, 3) + '*'.repeat(Math.max(0, email.length - 3));
  const local = email.slice(0, at);
  const shown = local.slice(0, 3);
  return `${shown}${'*'.repeat(Math.max(3, local.length - shown.length))}${email.slice(at)}`;
}
