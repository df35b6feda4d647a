import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RedisConnection } from '../read-models/redis-admin';
import type { RedisLease } from './lease';
import { pruneRoster, rosterKey, writeRosterEntry } from './roster';
import type { ProjectionVersions } from './versions';

/** What a leader runs (the projection, its rebuild worker, its heartbeat) until told to stop. */
export interface Leading {
  stop(): Promise<void>;
}

/** A keyspace this version projects beside the active one, live, until it takes readers over. */
export interface Building {
  readonly keyspaceId: string;
  /** Caught up with the store (its search index built): ready to take readers over. */
  caughtUp(): boolean;
  stop(): Promise<void>;
}

/**
 * Blue/green upgrades: a member whose projection code differs from the active keyspace's, while
 * another leads, builds its own keyspace beside it (one builder per version, by a lease of its
 * own); once caught up it offers the handover, the leader of the other version stands down, and
 * this one leads with its built keyspace.
 */
export interface Upgrades {
  versions: ProjectionVersions;
  builderLease: RedisLease;
  /** The active keyspace's id, as readers see it. */
  activeId(): Promise<string>;
  build(): Promise<Building>;
}

export interface LeaderGroupOptions {
  lease: RedisLease;
  /**
   * Starts leading with the lease's epoch (raise the fences, project, beat), with the keyspace
   * this version built if it caught up: resolves once it leads. Renewals go on meanwhile, so a
   * long catch-up does not lose the lease.
   */
  lead(epoch: number, built?: Building): Promise<Leading>;
  upgrades?: Upgrades;
  logger: Logger;
  registry?: Registry;
  /** How often the lease is renewed, or tried for; default a third of its time to live. */
  renewEveryMs?: number;
  /** Where each member says what it is at every tick (roster.ts), for the admin's panel. */
  roster?: { redis: RedisConnection; root: string };
}

export interface LeadershipStatus {
  instance: string;
  /** A standby building its version's keyspace beside the active one is a builder. */
  role: 'leader' | 'standby' | 'builder';
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
  private building: Building | undefined;
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
    const role = this.role === 'standby' && this.building ? 'builder' : this.role;
    return { instance: lease.instance, role, holder: this.holder, epoch: this.epoch, leaseMs: lease.leaseMs };
  }

  /** Stops leading (if it does) and gives the lease up, so a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.stopBuilding();
    const { roster } = this.options;
    if (roster) await roster.redis.hdel(rosterKey(roster.root), this.options.lease.instance).catch(() => undefined);
    if (this.role === 'leader') {
      await this.standDown('stopping', { lost: false });
      await this.options.lease.release().catch((error: unknown) => this.log.warn({ err: error }, 'lease not released; it runs out by itself'));
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      // A step that throws must not end the group's ticking: it tries again in a second.
      const failed = (error: unknown) => (this.log.error({ err: error }, 'lease step failed'), 1_000);
      this.ticking = this.tick()
        .catch(failed)
        .then((next) => this.schedule(next));
    }, ms);
  }

  /** Renews or tries for the lease; resolves with when to do so next (ms). */
  private async tick(): Promise<number> {
    const { lease, upgrades } = this.options;
    const every = this.options.renewEveryMs ?? Math.floor(lease.ttlMs / 3);
    // Another version taking readers over: this one neither leads nor builds meanwhile.
    const handover = upgrades ? await upgrades.versions.handover().catch(() => null) : null;
    const yielding = handover !== null && handover !== upgrades?.versions.fingerprint;
    if (yielding) {
      await this.stopBuilding();
      if (this.role === 'leader') {
        await this.standDown('another projection version takes readers over');
        await lease.release().catch(() => undefined);
      }
      await this.sayWhatItIs();
      return every;
    }
    const next = await this.renew(every);
    if (lease.holds() && this.role === 'standby') this.takeOver();
    else if (!lease.holds() && this.role === 'leader') await this.standDown('lease lost');
    if (upgrades) await this.tendVersions(upgrades, handover).catch((error: unknown) => this.log.warn({ err: error }, 'blue/green step failed; tried again next time'));
    await this.sayWhatItIs();
    return next;
  }

  private async sayWhatItIs(): Promise<void> {
    const { roster, lease } = this.options;
    if (!roster) return;
    const { instance, role } = this.status();
    await writeRosterEntry(roster.redis, roster.root, { instance, role, leaseMs: lease.leaseMs }).catch(() => undefined);
    if (role === 'leader') await pruneRoster(roster.redis, roster.root).catch(() => undefined);
  }

  /** Renews or tries for the lease; resolves with when to try next. */
  private async renew(every: number): Promise<number> {
    try {
      // Unanswered (a partition holds the connection open): given up after a renewal period, so
      // the lease's end by this process's own clock is noticed at the next tick.
      let timer: NodeJS.Timeout | undefined;
      const unanswered = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error('lease renewal unanswered')), every)));
      const view = await Promise.race([this.options.lease.renew(), unanswered]).finally(() => clearTimeout(timer));
      this.holder = view.holder;
      if (view.epoch) this.epoch = view.epoch;
      this.metrics.epoch.set(this.epoch);
      // A standby tries again as the holder's lease runs out, not up to a renewal period later.
      if (!view.held) return Math.min(every, Math.max(0, view.msLeft) + 10);
    } catch (error) {
      if (this.role === 'leader') this.log.warn({ err: error }, 'lease not renewed; leading on while it lasts');
    }
    return every;
  }

  /**
   * The leader marks the readers' keyspace as its version's and keeps its handover alive; a
   * standby of another version than the readers' keyspace builds its own beside it and, once
   * caught up, offers the handover.
   */
  private async tendVersions(upgrades: Upgrades, handover: string | null): Promise<void> {
    const { versions, builderLease } = upgrades;
    const ttl = 3 * this.options.lease.ttlMs;
    if (this.role === 'leader') {
      await versions.claim(await upgrades.activeId());
      if (handover === versions.fingerprint) await versions.offerHandover(ttl);
      return;
    }
    const active = await versions.fingerprintOf(await upgrades.activeId());
    if (active === null || active === versions.fingerprint) return void (await this.stopBuilding());
    await builderLease.renew();
    if (!builderLease.holds()) return void (await this.stopBuilding());
    if (!this.building) {
      this.log.info({ active, version: versions.fingerprint }, 'building this projection version beside the readers\' keyspace');
      this.building = await upgrades.build();
    }
    if (this.building.caughtUp()) await versions.offerHandover(ttl);
  }

  private async stopBuilding(): Promise<void> {
    const building = this.building;
    this.building = undefined;
    await building?.stop().catch((error: unknown) => this.log.warn({ err: error }, 'build did not stop cleanly'));
    await this.options.upgrades?.builderLease.release().catch(() => undefined);
  }

  private takeOver(): void {
    this.role = 'leader';
    this.metrics.leader.set(1);
    this.metrics.acquired.inc();
    this.log.info({ epoch: this.epoch }, 'projector leads');
    // A build that caught up is led with; one that has not is dropped (the leader decides anew).
    const built = this.building?.caughtUp() ? this.building : undefined;
    const unfinished = built ? undefined : this.building;
    this.building = undefined;
    void unfinished?.stop();
    const releaseBuilder = () => void this.options.upgrades?.builderLease.release().catch(() => undefined);
    this.leading = this.options.lead(this.epoch, built).finally(releaseBuilder).catch(async (error: unknown) => {
      this.log.error({ err: error }, 'could not start leading; standing by');
      await this.options.lease.release().catch(() => undefined);
      this.role = 'standby';
      this.metrics.leader.set(0);
      return undefined;
    });
  }

  /** Stops leading; `lost` (the default) counts it as a lease lost, which a clean stop is not. */
  private async standDown(why: string, { lost } = { lost: true }): Promise<void> {
    this.role = 'standby';
    this.metrics.leader.set(0);
    if (lost) this.metrics.lost.inc();
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
