import { randomUUID } from 'node:crypto';
import { ADMIN_MESSAGES, REPLAYS_KEPT, type ReplayRequest } from '@pass/events';
import type { ReplayControl } from './control';
import { ReplayErasures } from './erasures';
import { checkMoment, type ReplayTarget } from './moment';
import { runReplay, type ReplayRunnerDeps } from './runner';

/**
 * The replays the admin asks for: at most REPLAYS_KEPT kept at once (a further request is
 * refused, 429, rather than one discarded unasked); each runs as a job through `run`, in this
 * process or queued for the projector's.
 */
export function replayControl(
  deps: ReplayRunnerDeps & { run: (id: string, target: ReplayTarget) => Promise<void>; close?: () => Promise<void>; erasures?: ReplayErasures },
): ReplayControl {
  const { states, keyspaces } = deps;
  const erasures = deps.erasures ?? new ReplayErasures(deps);
  return {
    async start(request: ReplayRequest) {
      if ((await states.ids()).length >= REPLAYS_KEPT) return { status: 429, error: ADMIN_MESSAGES.replayTooMany };
      const checked = await checkMoment(deps.eventStore, request);
      if ('error' in checked) return { status: 400, error: checked.error };
      const id = `rp${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      const asked = { at: checked.target.at ?? null, position: checked.target.position ?? null };
      await states.create({ id, status: 'running', progress: 0, ...asked, events: 0, startedAt: new Date().toISOString(), error: null });
      // Two requests at once (on two query-api instances, say) both passed the count: the later one yields.
      if ((await states.ids()).indexOf(id) >= REPLAYS_KEPT) {
        await states.remove(id);
        return { status: 429, error: ADMIN_MESSAGES.replayTooMany };
      }
      await deps.run(id, checked.target);
      return { id };
    },
    async status(id) {
      const stored = await states.get(id);
      if (!stored) return null;
      const { erasuresTo: _erasuresTo, ...status } = stored;
      return status;
    },
    readable: (id) => erasures.upToDate(id),
    async remove(id) {
      if (!(await states.get(id))) return false;
      await states.remove(id);
      await keyspaces.drop(id);
      return true;
    },
    close: async () => deps.close?.(),
  };
}

/** Replays run in this process (standalone), one at a time, as the rebuild runs here too. */
export function localReplays(deps: ReplayRunnerDeps & { erasureSweepMs?: number }): ReplayControl {
  let queue: Promise<void> = Promise.resolve();
  const erasures = new ReplayErasures(deps);
  erasures.start(deps.erasureSweepMs);
  return replayControl({
    ...deps,
    erasures,
    run: async (id, target) => {
      queue = queue.then(() => runReplay(deps, id, target));
    },
    // Replays still queued or running stop at their next page, deleted.
    close: async () => {
      await erasures.stop();
      for (const id of await deps.states.ids()) await deps.states.remove(id);
      await queue;
    },
  });
}
