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
  /**
   * Where the command's outcome is logged when it was decided (accepted, unchanged, rejected):
   * the access line of the HTTP request that carried it, so a command costs one log line, not
   * two. Answers false when the line was not taken (the request's access line is written
   * already); without it (jobs, start-up commands) or then, the handler logs a line of its own.
   * A failure always gets its own line, with the error.
   */
  report?: (line: CommandLogLine) => boolean;
}

/** A decided command, as its log line shows it. */
export interface CommandLogLine {
  command: string;
  stream: string;
  outcome: 'accepted' | 'unchanged' | 'rejected';
  /** From queued to decided (and stored). */
  ms: number;
  attempts: number;
  /** Rejected: the domain error's code. */
  code?: string;
  /** Accepted or unchanged: events appended, and commands of the same stream decided with it. */
  events?: number;
  batch?: number;
}
