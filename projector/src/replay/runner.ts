import type { Logger } from 'pino';
import type { EventStore, ReplayStatus } from '@pass/events';
import type { Keyspace, ReadModelStore } from '../read-models/port';
import type { ReplayTarget } from './moment';
import { replayInto, ReplayCancelled } from './replay';
import type { ReplayStates } from './states';

export interface ReplayRunnerDeps {
  eventStore: EventStore;
  states: ReplayStates;
  /** Where replays' keyspaces live (the replay's id is its keyspace's): never the live read models' store. */
  keyspaces: ReadModelStore;
  logger: Logger;
  /** Once a replay is ready: its keys expire at `atMs`, just after its status (Redis). */
  expire?: (id: string, atMs: number) => Promise<void>;
  /** How long a replay's status is kept after it was asked for, when `expire` is given. */
  ttlMs?: number;
  /** The live read models' active keyspace, where it is at hand (replayInto's `live`). */
  live?: () => Promise<Keyspace>;
}

/**
 * When a replay's keys expire: a minute after its status, so no status ever names a replay whose
 * read models are gone (keys left for that minute expire on their own).
 */
export function expiryOf(status: ReplayStatus, deps: ReplayRunnerDeps): number {
  return Date.parse(status.startedAt) + (deps.ttlMs ?? 0) + 60_000;
}

/**
 * Runs one replay as a job: into a fresh keyspace of its own, its progress in its status, then
 * ready (or failed, its keyspace dropped). A replay deleted meanwhile stops at the next page and
 * leaves nothing behind.
 */
export async function runReplay(deps: ReplayRunnerDeps, id: string, target: ReplayTarget): Promise<void> {
  const log = deps.logger.child({ component: 'replay', replay: id });
  const asked = await deps.states.get(id);
  if (asked?.status !== 'running') return;
  // A job run again (its process died) starts over.
  await deps.keyspaces.drop(id);
  let status = asked;
  const keep = async (next: typeof status) => {
    status = next;
    return deps.states.update(next);
  };
  try {
    log.info('replay started');
    const run = await replayInto({
      eventStore: deps.eventStore,
      keyspace: deps.keyspaces.keyspace(id),
      target,
      onProgress: async (events, progress) => void (await keep({ ...status, events, progress })),
      wanted: async () => (await deps.states.get(id)) !== null,
      ...(deps.live ? { live: deps.live } : {}),
    });
    await deps.expire?.(id, expiryOf(asked, deps));
    const kept = await keep({ ...status, status: 'ready', progress: 1, events: run.events, at: run.at, position: run.position, erasuresTo: run.erasuresTo });
    if (!kept) throw new ReplayCancelled();
    log.info({ events: run.events, position: run.position }, 'replay ready');
  } catch (error) {
    await deps.keyspaces.drop(id).catch((dropError: unknown) => log.warn({ err: dropError }, 'replay keyspace not dropped'));
    if (error instanceof ReplayCancelled) return;
    log.error({ err: error }, 'replay failed');
    await keep({ ...status, status: 'failed', error: error instanceof Error ? error.message : String(error) });
  }
}
