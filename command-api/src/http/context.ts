import { randomUUID } from 'node:crypto';
import type { Actor, CommandContext, CommandLogLine, Principal } from '@pass/events';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../kernel/clock';

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/** The request id (set by the app shell's access log, or the caller's x-request-id) correlates everything a request causes. */
export function requestId(req: IncomingMessage): string {
  const fromShell = (req as { id?: unknown }).id;
  if (typeof fromShell === 'string' && fromShell) return fromShell;
  const header = req.headers['x-request-id'];
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

export function actorOf(principal: Principal | null): Actor {
  return principal ? { type: principal.kind, id: principal.id } : { type: 'anonymous' };
}

/** The commands a request caused, while its access line waits for them (infra/src/http/access-log.ts). */
type CarriesCommands = IncomingMessage & { commands?: CommandLogLine[] };

export function commandContext(req: IncomingMessage, principal: Principal | null, clock: Clock): CommandContext {
  const id = requestId(req);
  const report = (line: CommandLogLine): boolean => {
    const waiting = (req as CarriesCommands).commands;
    waiting?.push(line);
    return waiting !== undefined;
  };
  return { correlationId: id, causationId: id, actor: actorOf(principal), now: clock(), report };
}
