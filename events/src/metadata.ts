import { z } from 'zod';

/** Who caused an event. `anonymous` covers a guest's request before any account exists. */
export const actorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), id: z.string().min(1) }),
  z.object({ type: z.literal('admin'), id: z.string().min(1) }),
  z.object({ type: z.literal('system'), id: z.string().min(1) }),
  z.object({ type: z.literal('anonymous') }),
]);
export type Actor = z.infer<typeof actorSchema>;

export const eventMetadataSchema = z.object({
  eventId: z.uuid(),
  correlationId: z.string().min(1),
  causationId: z.string().min(1),
  actor: actorSchema,
  schemaVersion: z.number().int().positive(),
  /** ISO-8601 time the command was decided (the decider's `now`). */
  occurredAt: z.iso.datetime(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** What a command handler knows about the request that caused it. */
export interface CommandContext {
  correlationId: string;
  /** The id of the message (request, event or job) that caused this command. */
  causationId: string;
  actor: Actor;
  now: Date;
}
