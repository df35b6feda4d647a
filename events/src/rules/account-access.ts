import { z } from 'zod';
import { joinFormSchema, passwordRule } from './forms';

/**
 * A member's account access: changing the password, signing out everywhere,
 * recovering the account by a mailed link. The new password follows the join form's rule
 * (docs/product.md §5), so a password the join form takes is one these forms take. Browser-safe.
 */

/** A reset link works once, for this long after it was asked for. */
export const PASSWORD_RESET_TTL_MS = 60 * 60_000;

/**
 * The member a reset link's token is for: the token is `<member id>.<secret>` (command-api's
 * ResetLinks makes and checks it; its test holds the two to this layout). '' for another shape.
 */
export function resetTokenMember(token: string): string {
  const dot = token.indexOf('.');
  return dot > 0 ? token.slice(0, dot) : '';
}

export const ACCOUNT_ACCESS_MESSAGES = {
  currentPasswordRequired: 'Please enter your current password',
  newPasswordRequired: 'Please enter your new password',
  wrongCurrentPassword: 'Your current password is not correct',
  resetLinkInvalid: 'This reset link is not valid, was already used or has expired. Please ask for a new one.',
  resetRequested: 'If this email is registered, a link to set a new password is on its way. It works once, within 1 hour.',
} as const;

/** The spec's join password rule (4 to 8 characters, its messages), required as the new password. */
const newPassword = passwordRule(ACCOUNT_ACCESS_MESSAGES.newPasswordRequired);

/** POST /api/change-password. */
export const changePasswordSchema = z.object({
  currentPassword: z
    .string({ error: ACCOUNT_ACCESS_MESSAGES.currentPasswordRequired })
    .min(1, ACCOUNT_ACCESS_MESSAGES.currentPasswordRequired)
    .max(100, ACCOUNT_ACCESS_MESSAGES.wrongCurrentPassword),
  newPassword,
});
export type ChangePasswordForm = z.infer<typeof changePasswordSchema>;

/** POST /api/password-reset: the join form's e-mail rule. */
export const passwordResetSchema = z.object({ email: joinFormSchema.shape.email });
export type PasswordResetForm = z.infer<typeof passwordResetSchema>;

/** A reset link's token, as the page read it from its `#token=`: any other shape is a bad link. */
const resetToken = z.string({ error: ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid }).min(1, ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid).max(200, ACCOUNT_ACCESS_MESSAGES.resetLinkInvalid);

/** POST /api/password-reset/confirm: the link's token and the new password. */
export const passwordResetConfirmSchema = z.object({ token: resetToken, password: newPassword });
export type PasswordResetConfirmForm = z.infer<typeof passwordResetConfirmSchema>;

/** POST /api/password-reset/check: whether the link's token still sets a password (it is not used by asking). */
export const passwordResetCheckSchema = z.object({ token: resetToken });
export type PasswordResetCheckForm = z.infer<typeof passwordResetCheckSchema>;
