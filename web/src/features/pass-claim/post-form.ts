import type { FieldErrors, Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { IMAGE_MESSAGES, imageFileProblem, postFieldsSchema, type PostFields } from '@pass/events/kernel';

export interface PostFormValues extends PostFields {
  image: FileList | null;
}

/** What the post form hands to /content/amount through navigation state (a File survives structured clone). */
export interface PostFormState {
  fields: PostFields;
  image: File;
}

/** The image's first problem in the spec's order: required, chosen, type, size, forbidden kinds. */
export function imageProblem(files: FileList | null | undefined): string | null {
  if (!files || files.length === 0) return IMAGE_MESSAGES.required;
  return imageFileProblem(files[0]);
}

/** The shared text rules (zod) plus the image rules the zod schema does not cover. */
export function postFormResolver(registeredEmail: string): Resolver<PostFormValues> {
  const text = zodResolver(postFieldsSchema({ registeredEmail }));
  return async (values, context, options) => {
    const { image, ...fields } = values;
    const result = await text(fields, context, options as never);
    const errors: FieldErrors<PostFormValues> = { ...result.errors };
    const problem = imageProblem(image);
    if (problem) errors.image = { type: 'validate', message: problem };
    if (Object.keys(errors).length > 0) return { values: {}, errors };
    return { values: { ...(result.values as PostFields), image }, errors: {} };
  };
}
