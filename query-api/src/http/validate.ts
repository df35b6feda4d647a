import type { Response } from 'express';
import { z } from 'zod';

/** Query parameters of the paged lists. */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(50),
  q: z.string().trim().max(100).optional(),
});

/** Parses `input`; on failure answers 400 `{ error }` naming the parameter and returns undefined. */
export function parseOr400<S extends z.ZodType>(schema: S, input: unknown, res: Response): z.infer<S> | undefined {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  res.status(400).json({ error: `${where}${issue?.message ?? 'Invalid request'}` });
  return undefined;
}
