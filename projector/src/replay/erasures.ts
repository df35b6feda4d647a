import type { Logger } from 'pino';
import { ConcurrentProjectionError } from '../projections/apply';
import type { Keyspace } from '../read-models/port';
import { eraseMembersErasedAfter } from './replay';
import { expiryOf, type ReplayRunnerDeps } from './runner';

/** How often the process that runs replays takes members erased meanwhile out of the ready ones. */
export const ERASURE_SWEEP_MS = 2_000;

/**
 * Keeps ready replays erased as today's site is: before every read of one (`upToDate`) and, in
 * the process that runs them, every ERASURE_SWEEP_MS for all of them (`start`), so a member
 * erased once a replay was made leaves it within seconds even if nobody reads it. Each pass reads
 * the events stored since the replay's last one (usually none) for `MemberErased`.
 */
export class ReplayErasures {
  private readonly catchingUp = new Map<string, Promise<Keyspace>>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private readonly log: Logger;

  constructor(private readonly deps: ReplayRunnerDeps) {
    this.log = deps.logger.child({ component: 'replay-erasures' });
  }

  /** The replay's keyspace with every erasure stored until now taken into it; one pass per replay at a time in this process. */
  upToDate(id: string): Promise<Keyspace> {
    let pass = this.catchingUp.get(id);
    if (!pass) {
      pass = this.erase(id).finally(() => this.catchingUp.delete(id));
      this.catchingUp.set(id, pass);
    }
    return pass;
  }

  start(everyMs = ERASURE_SWEEP_MS): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    }, everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
    await Promise.allSettled([...this.catchingUp.values()]);
  }

  private async sweep(): Promise<void> {
    try {
      for (const id of await this.deps.states.ids()) await this.upToDate(id);
    } catch (error) {
      this.log.warn({ err: error }, 'replays not brought up to date with erasures; next sweep retries');
    }
  }

  /**
   * Two processes may pass at once (query-api instances reading, the projector's sweep): the
   * second's apply finds the checkpoint moved (ConcurrentProjectionError) and leaves it to the
   * first. A replay deleted meanwhile gets its keyspace dropped again after the pass.
   */
  private async erase(id: string): Promise<Keyspace> {
    const { states, keyspaces, eventStore } = this.deps;
    const keyspace = keyspaces.keyspace(id);
    const stored = await states.get(id);
    if (stored?.status !== 'ready' || stored.erasuresTo === undefined) return keyspace;
    try {
      const pass = await eraseMembersErasedAfter(keyspace, eventStore, stored.erasuresTo);
      // A write may have replaced a key that was set to expire (SET drops its TTL).
      if (pass.erased > 0) await this.deps.expire?.(id, expiryOf(stored, this.deps));
      if (pass.to !== stored.erasuresTo && !(await states.update({ ...stored, erasuresTo: pass.to }))) await keyspaces.drop(id);
    } catch (error) {
      if (!(error instanceof ConcurrentProjectionError)) throw error;
    }
    return keyspace;
  }
}
