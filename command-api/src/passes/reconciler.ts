import { randomUUID } from 'node:crypto';
import { streams, type CommandContext } from '@pass/events';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock';
import type { CommandHandler } from '../kernel/command-handler';
import { userDecider } from '../members/decider';
import { poolDecider } from '../passes-pool/decider';
import { CLAIM_RECORD_DEADLINE_MS } from './record-claim';

/**
 * A pending reservation this old without PassesClaimed on the member's stream is abandoned.
 * Kept well above CLAIM_RECORD_DEADLINE_MS: the member stream refuses to record a claim after
 * that deadline, so once this much time has passed the claim can no longer be recorded and
 * releasing it is safe.
 */
export const RECONCILE_AFTER_MS = 60_000;
const _deadlinesAreOrdered: true = (RECONCILE_AFTER_MS > CLAIM_RECORD_DEADLINE_MS * 2) as true;
void _deadlinesAreOrdered;

export interface ReconcileReport {
  confirmed: number;
  released: number;
  /** Still pending and younger than RECONCILE_AFTER_MS. */
  waiting: number;
}

export interface ReconcilerDeps {
  handler: CommandHandler;
  logger: Logger;
  clock: Clock;
  intervalMs?: number;
}

/** Completes or releases claims left half-done by a crash (docs/architecture.md, "Command side", claiming passes). Runs at start and periodically. */
export class PassReservationReconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ReconcileReport> | undefined;

  constructor(private readonly deps: ReconcilerDeps) {}

  /** One pass over the pending reservations. Concurrent calls share the same run. */
  runOnce(): Promise<ReconcileReport> {
    this.running ??= this.reconcile().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  start(): void {
    if (this.timer) return;
    const tick = () =>
      this.runOnce().catch((error: unknown) => this.deps.logger.error({ err: error }, 'pass reservation reconciler failed'));
    void tick();
    this.timer = setInterval(tick, this.deps.intervalMs ?? 30_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async reconcile(): Promise<ReconcileReport> {
    const { handler, clock, logger } = this.deps;
    const report: ReconcileReport = { confirmed: 0, released: 0, waiting: 0 };
    const { state: pool } = await handler.load(poolDecider, streams.passesPool);
    for (const reservation of pool.pending.values()) {
      const now = clock();
      const ctx: CommandContext = { correlationId: randomUUID(), causationId: reservation.reservationId, actor: { type: 'system', id: 'pass-reconciler' }, now };
      const { state: user } = await handler.load(userDecider, streams.user(reservation.userId));
      try {
        if (user.claimedReservations.has(reservation.reservationId)) {
          await handler.handle(poolDecider, streams.passesPool, { type: 'ConfirmPassReservation', data: { reservationId: reservation.reservationId }, now }, ctx);
          report.confirmed++;
        } else if (now.getTime() - Date.parse(reservation.reservedAt) > RECONCILE_AFTER_MS) {
          await handler.handle(
            poolDecider,
            streams.passesPool,
            { type: 'ReleasePassReservation', data: { reservationId: reservation.reservationId, reason: 'abandoned' }, now },
            ctx,
          );
          report.released++;
        } else {
          report.waiting++;
        }
      } catch (error) {
        // One reservation failing must not block the others; the next run retries it.
        logger.error({ err: error, reservationId: reservation.reservationId }, 'could not reconcile a pass reservation');
      }
    }
    if (report.confirmed || report.released) logger.info({ ...report }, 'pass reservations reconciled');
    return report;
  }
}
