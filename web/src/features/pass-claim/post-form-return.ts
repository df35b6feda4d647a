import type { PostFields } from '@pass/events/kernel';

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
