import { randomUUID } from 'node:crypto';
import { ADMIN_MESSAGES, REPLAYS_KEPT, type ReplayRequest } from '@pass/events';
import { ConcurrentProjectionError } from '../projections/apply';
import type { Keyspace } from '../read-models/port';
import type { ReplayControl } from './control';
import { checkMoment, type ReplayTarget } from './moment';
import { eraseMembersErasedAfter } from './replay';
import { runReplay, type ReplayRunnerDeps } from './runner';

/**
 * The replays the admin asks for: at most REPLAYS_KEPT kept at once (a further request is
 * refused, 429, rather than one discarded unasked); each runs as a job through `run`, in this
 * process or queued for the projector's.
 */
export function replayControl(deps: ReplayRunnerDeps & { run: (id: string, target: ReplayTarget) => Promise<void>; close?: () => Promise<void> }): ReplayControl {
  const { states, keyspaces } = deps;
  const catchingUp = new Map<string, Promise<Keyspace>>();
  return {
    async start(request: ReplayRequest) {
      if ((await states.ids()).length >= REPLAYS_KEPT) return { status: 429, error: ADMIN_MESSAGES.replayTooMany };
      const checked = await checkMoment(deps.eventStore, request);
      if ('error' in checked) return { status: 400, error: checked.error };
      const id = `rp${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      const asked = { at: checked.target.at ?? null, position: checked.target.position ?? null };
      await states.create({ id, status: 'running', progress: 0, ...asked, events: 0, startedAt: new Date().toISOString(), error: null });
      await deps.run(id, checked.target);
      return { id };
    },
    async status(id) {
      const stored = await states.get(id);
      if (!stored) return null;
      const { erasuresTo: _erasuresTo, ...status } = stored;
      return status;
    },
    readable: (id) => {
      // One catch-up per replay at a time in this process; another process's meanwhile is harmless (see eraseSince).
      let reading = catchingUp.get(id);
      if (!reading) {
        reading = eraseSince(deps, id).finally(() => catchingUp.delete(id));
        catchingUp.set(id, reading);
      }
      return reading;
    },
    async remove(id) {
      if (!(await states.get(id))) return false;
      await states.remove(id);
      await keyspaces.drop(id);
      return true;
    },
    close: async () => deps.close?.(),
  };
}

/**
 * A replay's keyspace once the erasures stored since its last read are projected into it. Two
 * query-api instances may catch up at once: the second's apply then finds the checkpoint moved
 * (ConcurrentProjectionError) and leaves it to the first.
 */
async function eraseSince(deps: ReplayRunnerDeps, id: string): Promise<Keyspace> {
  const keyspace = deps.keyspaces.keyspace(id);
  const stored = await deps.states.get(id);
  if (stored?.status !== 'ready' || stored.erasuresTo === undefined) return keyspace;
  try {
    const erasuresTo = await eraseMembersErasedAfter(keyspace, deps.eventStore, stored.erasuresTo);
    if (erasuresTo !== stored.erasuresTo) await deps.states.update({ ...stored, erasuresTo });
  } catch (error) {
    if (!(error instanceof ConcurrentProjectionError)) throw error;
  }
  return keyspace;
}

/** Replays run in this process (standalone), one at a time, as the rebuild runs here too. */
export function localReplays(deps: ReplayRunnerDeps): ReplayControl {
  let queue: Promise<void> = Promise.resolve();
  return replayControl({
    ...deps,
    run: async (id, target) => {
      queue = queue.then(() => runReplay(deps, id, target));
    },
    // Replays still queued or running stop at their next page, deleted.
    close: async () => {
      for (const id of await deps.states.ids()) await deps.states.remove(id);
      await queue;
    },
  });
}
