import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RedisLease } from './lease';

/** What a leader runs (the projection, its rebuild worker, its heartbeat) until told to stop. */
export interface Leading {
  stop(): Promise<void>;
}

export interface LeaderGroupOptions {
  lease: RedisLease;
  /**
   * Starts leading with the lease's epoch (raise the fences, project, beat): resolves once it
   * leads. Renewals go on meanwhile, so a long catch-up does not lose the lease.
   */
  lead(epoch: number): Promise<Leading>;
  logger: Logger;
  registry?: Registry;
  /** How often the lease is renewed, or tried for; default a third of its time to live. */
  renewEveryMs?: number;
}

export interface LeadershipStatus {
  instance: string;
  role: 'leader' | 'standby';
  /** The instance holding the lease as this one last saw it (null: nobody). */
  holder: string | null;
  epoch: number;
  leaseMs: number;
}

/**
 * One member of the projectors' hot/standby group: it tries for the lease, leads while it holds
 * it, and stands by again as soon as it may no longer count on it (a renewal refused, or none
 * answered within the lease). A leader that was paused is fenced by its epoch meanwhile.
 */
export class LeaderGroup {
  private role: 'leader' | 'standby' = 'standby';
  private holder: string | null = null;
  private epoch = 0;
  private leading: Promise<Leading | undefined> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly log: Logger;
  private readonly metrics: ReturnType<typeof groupMetrics>;

  constructor(private readonly options: LeaderGroupOptions) {
    this.log = options.logger.child({ component: 'projector-lease', instance: options.lease.instance });
    this.metrics = groupMetrics(options.registry);
  }

  start(): void {
    this.schedule(0);
  }

  status(): LeadershipStatus {
    const { lease } = this.options;
    return { instance: lease.instance, role: this.role, holder: this.holder, epoch: this.epoch, leaseMs: lease.leaseMs };
  }

  /** Stops leading (if it does) and gives the lease up, so a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    if (this.role === 'leader') {
      await this.standDown('stopping');
      await this.options.lease.release().catch((error: unknown) => this.log.warn({ err: error }, 'lease not released; it runs out by itself'));
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().then((next) => this.schedule(next));
    }, ms);
  }

  /** Renews or tries for the lease; resolves with when to do so next (ms). */
  private async tick(): Promise<number> {
    const { lease } = this.options;
    const every = this.options.renewEveryMs ?? Math.floor(lease.ttlMs / 3);
    let next = every;
    try {
      const view = await lease.renew();
      this.holder = view.holder;
      if (view.epoch) this.epoch = view.epoch;
      this.metrics.epoch.set(this.epoch);
      // A standby tries again as the holder's lease runs out, not up to a renewal period later.
      if (!view.held) next = Math.min(every, Math.max(0, view.msLeft) + 10);
    } catch (error) {
      if (this.role === 'leader') this.log.warn({ err: error }, 'lease not renewed; leading on while it lasts');
    }
    if (lease.holds() && this.role === 'standby') this.takeOver();
    else if (!lease.holds() && this.role === 'leader') await this.standDown('lease lost');
    return next;
  }

  private takeOver(): void {
    this.role = 'leader';
    this.metrics.leader.set(1);
    this.metrics.acquired.inc();
    this.log.info({ epoch: this.epoch }, 'projector leads');
    this.leading = this.options.lead(this.epoch).catch(async (error: unknown) => {
      this.log.error({ err: error }, 'could not start leading; standing by');
      await this.options.lease.release().catch(() => undefined);
      this.role = 'standby';
      this.metrics.leader.set(0);
      return undefined;
    });
  }

  private async standDown(why: string): Promise<void> {
    this.role = 'standby';
    this.metrics.leader.set(0);
    if (why !== 'stopping') this.metrics.lost.inc();
    this.log.warn({ epoch: this.epoch, holder: this.holder }, `projector stands by (${why})`);
    const leading = await this.leading;
    this.leading = undefined;
    await leading?.stop().catch((error: unknown) => this.log.warn({ err: error }, 'leading did not stop cleanly'));
  }
}

function groupMetrics(registry: Registry | undefined) {
  const registers = registry ? [registry] : [];
  return {
    leader: new Gauge({ name: 'pass_projector_leader', help: 'Whether this projector leads (1) or stands by (0)', registers }),
    epoch: new Gauge({ name: 'pass_projector_lease_epoch', help: "The fencing epoch of the projectors' lease as this process last saw it", registers }),
    acquired: new Counter({ name: 'pass_projector_lease_acquired_total', help: 'Times this projector took the lease', registers }),
    lost: new Counter({ name: 'pass_projector_lease_lost_total', help: 'Times this projector lost the lease while leading', registers }),
  };
}
