import { performance } from 'node:perf_hooks';
import { streamCategory, type CommandContext, type CommandLogLine } from '@pass/events';
import type { Logger } from 'pino';
import type { CommandMetrics, CommandOutcome } from './command-metrics';

/** What the log needs of a queued command. */
export interface LoggedCommand {
  command: { type: string };
  ctx: CommandContext;
  /** performance.now() when it was queued. */
  enqueuedAt: number;
}

/** From queued to now, in ms with two decimals, as a command's log line shows it. */
const msSinceQueued = (item: LoggedCommand): number => Math.round((performance.now() - item.enqueuedAt) * 100) / 100;

/**
 * The stream as a log line names it: an e-mail's stream id is a keyed hash of the address, the
 * same for every account that address ever held, so a log (kept past an erasure) names its kind only.
 */
const loggedStream = (streamId: string): string => (streamCategory(streamId) === 'email' ? 'email' : streamId);

/**
 * One line per decided command: on its request's access line when it has one, else a line of its
 * own. Every command the handler takes passes here once, so it also counts them (by type and
 * outcome) and times them, when given the process's metrics.
 */
export class CommandLog {
  constructor(
    private readonly logger: Logger,
    private readonly metrics?: CommandMetrics,
  ) {}

  decided(item: LoggedCommand, streamId: string, outcome: CommandLogLine['outcome'], extra: Pick<CommandLogLine, 'attempts' | 'code' | 'events' | 'batch'>): void {
    const ms = msSinceQueued(item);
    this.measure(item, outcome, ms);
    const line: CommandLogLine = { command: item.command.type, stream: loggedStream(streamId), outcome, ms, ...extra };
    if (!item.ctx.report?.(line)) this.logger.info({ ...line, correlationId: item.ctx.correlationId }, 'command');
  }

  /** A command that could not be decided or appended (not a refusal): always a line of its own, with the error. */
  failed(item: LoggedCommand, streamId: string, err: unknown, attempts: number): void {
    const ms = msSinceQueued(item);
    this.measure(item, 'failed', ms);
    this.logger.info({ command: item.command.type, stream: loggedStream(streamId), outcome: 'failed', ms, correlationId: item.ctx.correlationId, err, attempts }, 'command');
  }

  private measure(item: LoggedCommand, outcome: CommandOutcome, ms: number): void {
    if (!this.metrics) return;
    const type = item.command.type;
    this.metrics.commands.inc({ type, outcome });
    this.metrics.seconds.observe({ type }, ms / 1000);
  }
}
