import { START, comparePositions, positionFromString, positionToString, type GlobalPosition } from '@pass/events';

/** Where a projector stands: the last position it stored, what it projected, its last error, and who waits for a position. */
export class ProjectorProgress {
  position: GlobalPosition = START;
  eventsProjected = 0;
  lastError: string | null = null;
  /** The last failure even after a batch succeeded since, so an operator sees an error that came and went. */
  lastFailure: { message: string; at: Date } | null = null;
  private readonly waiters = new Set<{ target: GlobalPosition; done: () => void }>();

  /** The checkpoint this projector expects its keyspace to hold (null: none yet). */
  get checkpoint(): string | null {
    return comparePositions(this.position, START) === 0 ? null : positionToString(this.position);
  }

  /** A (re)subscription starts from the keyspace's checkpoint. */
  restart(checkpoint: string | null): void {
    this.position = checkpoint ? positionFromString(checkpoint) : START;
    this.release();
  }

  /** A batch ending at `end` is stored. Only forwards: a batch handed over again changes nothing. */
  stored(end: GlobalPosition, applied: number): void {
    if (comparePositions(end, this.position) > 0) this.position = end;
    this.eventsProjected += applied;
    this.lastError = null;
  }

  failed(error: unknown): void {
    this.lastError = failureMessage(error);
    this.lastFailure = { message: this.lastError, at: new Date() };
  }

  /** Resolves once `target` is stored (and, see `release`, broadcast). */
  async reach(target: GlobalPosition): Promise<void> {
    if (comparePositions(this.position, target) >= 0) return;
    await new Promise<void>((done) => this.waiters.add({ target, done }));
  }

  /** Lets go of whoever waits for a position stored by now; called once its live events are out too. */
  release(): void {
    for (const waiter of this.waiters) {
      if (comparePositions(this.position, waiter.target) >= 0) {
        this.waiters.delete(waiter);
        waiter.done();
      }
    }
  }
}

const MAX_MESSAGE = 300;

/**
 * An error as operators see it in /status, the heartbeat and readiness answers: e-mail
 * addresses (a message may quote an event's data) replaced, and cut short.
 */
export function failureMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const redacted = text.replace(/[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+/g, '<e-mail>');
  return redacted.length > MAX_MESSAGE ? `${redacted.slice(0, MAX_MESSAGE)}…` : redacted;
}
