import { DomainError, IMAGE_MESSAGES, normalizeEmail, type CommandOf, type UserEvent } from '@pass/events';
import { requireRegistered, type UserState } from '../members/state';

const EMAIL_MUST_MATCH = 'Your email must match the one registered';

/** Posts the member's card (certificate), or updates it keeping its image when none is sent. */
export function decidePostCertificate(command: CommandOf<'PostCertificate'>, state: UserState): UserEvent[] {
  requireRegistered(state);
  const data = command.data;
  if (normalizeEmail(data.email) !== normalizeEmail(state.email)) {
    throw new DomainError('invalid', EMAIL_MUST_MATCH, { fields: { email: EMAIL_MUST_MATCH } });
  }
  const image = data.image ?? state.certificate?.image;
  if (!image) throw new DomainError('invalid', IMAGE_MESSAGES.notChosen, { fields: { image: IMAGE_MESSAGES.notChosen } });
  const at = command.now.toISOString();
  const certificate = { userId: state.userId, fullname: data.fullname, country: data.country, email: state.email, link: data.link, image, message: data.message };
  return state.certificate
    ? [{ type: 'CertificateUpdated', data: { ...certificate, updatedAt: at } }]
    : [{ type: 'CertificatePosted', data: { ...certificate, postedAt: at } }];
}
