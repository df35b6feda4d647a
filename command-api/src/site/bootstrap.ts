import { streams, type CommandContext } from '@pass/events';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock';
import type { CommandHandler } from '../kernel/command-handler';
import { poolDecider } from '../passes-pool/decider';
import { siteDecider } from './decider';

/** day/month/year, as the spec stores startDate (UTC, so every process agrees). */
export function toStartDate(date: Date): string {
  return `${date.getUTCDate()}/${date.getUTCMonth() + 1}/${date.getUTCFullYear()}`;
}

/**
 * A fresh installation opens with passes to claim and its day counter running: the supply
 * starts at `initialAvailablePasses` and the start date at the first start's day. Both are
 * no-ops once set (by an earlier start or by the admin), so every start may call this.
 */
export async function bootstrapSite(
  deps: { handler: CommandHandler; clock: Clock; logger: Logger },
  options: { initialAvailablePasses: number },
): Promise<void> {
  const now = deps.clock();
  const ctx: CommandContext = { correlationId: 'bootstrap-site', causationId: 'settings', actor: { type: 'system', id: 'bootstrap' }, now };
  const supply = await deps.handler.handle(
    poolDecider,
    streams.passesPool,
    { type: 'InitializePassSupply', data: { available: options.initialAvailablePasses, setBy: 'bootstrap' }, now },
    ctx,
  );
  const site = await deps.handler.handle(
    siteDecider,
    streams.site,
    { type: 'InitializeSite', data: { startDate: toStartDate(now), initializedBy: 'bootstrap' }, now },
    ctx,
  );
  if (supply.events.length > 0 || site.events.length > 0) {
    deps.logger.info({ available: options.initialAvailablePasses, startDate: toStartDate(now) }, 'site initialized for its first start');
  }
}
