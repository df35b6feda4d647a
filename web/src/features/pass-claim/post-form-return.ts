import type { PostFields } from '@pass/events/kernel';
import type { PostFormState } from './post-form';

// Kept apart from post-form.ts (zod, the form's resolver): the claim saga, in the start bundle, reads it.

/** The post form's fields, by name (the server names a refused one in its answer's `fields`). */
export const POST_FORM_FIELDS = ['fullname', 'country', 'email', 'link', 'image', 'message'] as const;
export type PostFormField = (typeof POST_FORM_FIELDS)[number];

/**
 * What the claim saga hands back to /content/post when the server refused a field of the form
 * (e.g. a renamed PDF sent as an image): the fields as typed and the server's message per field,
 * shown beside that field instead of on the amount step.
 */
export interface PostFormReturn {
  returned: { fields: PostFields; errors: Partial<Record<PostFormField, string>> };
}

export const POST_FORM_RETURNED = 'Your certificate was not sent: correct the field marked below and send it again.';

export function postFormReturnOf(state: unknown): PostFormReturn['returned'] | null {
  if (!state || typeof state !== 'object' || !('returned' in state)) return null;
  return (state as PostFormReturn).returned;
}

/** The server's messages for the post form's fields, or null when it named none of them. */
export function postFieldErrors(fields: Record<string, string> | undefined): PostFormReturn['returned']['errors'] | null {
  if (!fields) return null;
  const errors: PostFormReturn['returned']['errors'] = {};
  for (const name of POST_FORM_FIELDS) if (fields[name]) errors[name] = fields[name];
  return Object.keys(errors).length > 0 ? errors : null;
}

/**
 * The form as last sent to the amount step and the history entry it was sent from, kept in memory
 * for browser Back: the browser's history does not bring a File back to an earlier entry, so
 * navigation state cannot. Cleared by a claim.
 */
let lastSent: { entryKey: string; form: PostFormState } | null = null;

export function rememberSentPostForm(sent: { entryKey: string; form: PostFormState } | null): void {
  lastSent = sent;
}

/** The form as sent from this history entry, if it was the last one sent. */
export function sentPostForm(entryKey: string): PostFormState | null {
  return lastSent?.entryKey === entryKey ? lastSent.form : null;
}
