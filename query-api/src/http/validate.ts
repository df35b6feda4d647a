import type { Response } from 'express';
import { z } from 'zod';

/** Query parameters of the paged lists. */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(50),
  q: z.string().trim().max(100).optional(),
});

/** A request the schema refused: 400 and its message, naming the parameter. */
export interface Invalid {
  invalid: { status: 400; body: { error: string } };
}

/** Parses `input`, or says why not as the 400 answer both lanes send. */
export function validated<S extends z.ZodType>(schema: S, input: unknown): { data: z.infer<S> } | Invalid {
  const result = schema.safeParse(input);
  if (result.success) return { data: result.data };
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return { invalid: { status: 400, body: { error: `${where}${issue?.message ?? 'Invalid request'}` } } };
}

/** Parses `input`; on failure answers 400 `{ error }` naming the parameter and returns undefined. */
export function parseOr400<S extends z.ZodType>(schema: S, input: unknown, res: Response): z.infer<S> | undefined {
  const result = validated(schema, input);
  if ('data' in result) return result.data;
  res.status(result.invalid.status).json(result.invalid.body);
  return undefined;
}
