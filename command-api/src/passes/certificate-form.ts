import { IMAGE_MESSAGES, amountFormSchema, isSafeLink, postFieldsSchema, type PostFields } from '@pass/events';
import { HttpError } from '../http/errors';
import type { UserState } from '../members/state';
import { checkImageUpload, type UploadedFile } from '../uploads/validate-upload';
import { freePasses, type PoolState } from '../passes-pool/state';

export interface CertificateForm {
  fields: PostFields;
  /** Passes to claim with the post (0: update the card only). */
  passes: number;
  file: UploadedFile | undefined;
}

const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);

/**
 * The post form and the amount form (docs/product.md §4, §5) as one multipart body, checked like the web
 * checks them: every field's first message at once, answered 400. The amount is at most the
 * smaller of the passes available and the member's points / 20 (`amountFormSchema`); 0 only
 * updates an existing card.
 */
export function checkCertificateForm(body: Record<string, unknown>, file: UploadedFile | undefined, user: UserState, pool: PoolState): CertificateForm {
  const problems: Record<string, string> = {};
  const text = postFieldsSchema({ registeredEmail: user.email }).safeParse({
    fullname: field(body, 'fullname'),
    country: field(body, 'country'),
    email: field(body, 'email'),
    link: field(body, 'link'),
    message: field(body, 'message'),
  });
  if (!text.success) for (const issue of text.error.issues) problems[String(issue.path[0])] ??= issue.message;
  if (text.success && !isSafeLink(text.data.link)) problems.link = 'Please enter a valid link';

  const passesRaw = field(body, 'passes') ?? '0';
  if (passesRaw.trim() !== '0' || !user.certificate) {
    const amount = amountFormSchema(freePasses(pool), user.points).safeParse({ passes: passesRaw });
    if (!amount.success) problems.passes = amount.error.issues[0]?.message ?? 'Please choose at least 1 pass';
  }

  const imageProblem = imageProblemOf(file, user);
  if (imageProblem) problems.image = imageProblem;
  if (Object.keys(problems).length > 0 || !text.success) {
    throw new HttpError(400, Object.values(problems)[0] ?? 'Please check the form', problems);
  }
  return { fields: text.data, passes: Number(passesRaw), file };
}

/** A sent image must be one (checked by content); a first post needs one. */
function imageProblemOf(file: UploadedFile | undefined, user: UserState): string | undefined {
  if (file && file.size === 0) return IMAGE_MESSAGES.required;
  if (!file) return user.certificate ? undefined : IMAGE_MESSAGES.notChosen;
  try {
    checkImageUpload(file);
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return error.message;
  }
}
