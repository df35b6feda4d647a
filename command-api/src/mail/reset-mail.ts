import { PASSWORD_RESET_TTL_MS } from '@pass/events';
import type { Mail } from './mailer';

/** The page the link opens (the web's reset form reads the token from the fragment, `#token=`). */
export const RESET_PASSWORD_PAGE = '/content/reset-password';

/**
 * The link a reset mail carries, on the site's public address. The token is in the fragment: a
 * browser sends the fragment to no server and in no Referer, so no access log, proxy or third
 * party ever sees it.
 */
export function resetLink(siteUrl: string, token: string): string {
  return `${siteUrl.replace(/\/+$/, '')}${RESET_PASSWORD_PAGE}#token=${encodeURIComponent(token)}`;
}

/** The reset mail: short, in the site's language (English for members), the link on a line of its own. */
export function resetMail(to: string, siteUrl: string, token: string): Mail {
  const hours = PASSWORD_RESET_TTL_MS / 3_600_000;
  return {
    to,
    subject: 'Set a new password for your pass',
    text: [
      'Hello,',
      '',
      'Someone asked to set a new password for the account of this email address. To choose one, open this link:',
      '',
      resetLink(siteUrl, token),
      '',
      `The link works once, within ${hours} hour${hours === 1 ? '' : 's'}. Setting a new password signs you out everywhere.`,
      '',
      'If you did not ask for it, you can ignore this message: your password stays as it is.',
      '',
      siteUrl.replace(/\/+$/, ''),
      '',
    ].join('\n'),
  };
}
