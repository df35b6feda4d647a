import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { createRedisReadModels } from '@pass/projector';
import { Browser } from '../client';
import { expectNothingLostOrHalfDone } from './checks';
import { Cluster } from './cluster';
import { Load } from './load';
import { releaseWithChangedProjection } from './release';
import { faultTally } from './tally';

/**
 * A rolling upgrade of the whole distributed layout to a release whose projection code differs
 * (a copy of this checkout with a projection file changed: release.ts), one process at a time,
 * under load: a projector of the new version builds its keyspace beside
 * the readers' while the old leader keeps projecting; once caught up, readers switch in one step
 * and the old projectors stand by; then command-api, query-api and the old projectors are
 * replaced. A reader polling throughout never sees an empty ranking or a figure going back, no
 * acknowledged command is lost, and the read models equal a clean rebuild.
 */
const pgUp = await requireService('infra faults: rolling upgrade (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra faults: rolling upgrade (Redis)', testRedisUrl(), 6379);
const tally = faultTally('rolling upgrade with a changed projection');

interface Leadership {
  role: string;
  holder: string | null;
}

describe.skipIf(!pgUp || !redisUp)('distributed: a rolling upgrade with a changed projection', () => {
  const cluster = new Cluster({ redisUrl: testRedisUrl(), env: { PROJECTOR_LEASE_MS: '2000' } });
  const next = releaseWithChangedProjection();
  afterAll(async () => {
    const codes = await cluster.close();
    next.close();
    expect(codes.every((c) => c === 0)).toBe(true);
  });

  const leadership = async (name: string): Promise<Leadership> =>
    ((await (await fetch(`${cluster.url(name)}/status`)).json()) as { leadership: Leadership }).leadership;
  const until = async (what: string, holds: () => Promise<boolean>, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await holds())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const activeKeyspace = async () => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    try {
      const readModels = createRedisReadModels({ redis, root: `${cluster.prefix}rm`, activeCacheMs: 0 });
      return { active: await readModels.activeId(), all: await readModels.list() };
    } finally {
      redis.disconnect();
    }
  };

  it('switches readers to the new version in one step and loses nothing', async () => {
    await cluster.start('command-api');
    await cluster.start('projector-a');
    await Promise.all([cluster.start('projector-b'), cluster.start('query-a')]);
    let commandApi = 'command-api';
    let queryApi = 'query-a';
    const load = new Load({ origin: () => cluster.url(commandApi), clients: 6, claimEvery: 5 });
    await load.start();
    const seen: string[] = [];
    let reading = true;
    const reader = (async () => {
      let last = { members: 0, sold: 0, ranked: 0 };
      while (reading) {
        const browser = new Browser(cluster.url(queryApi));
        const [main, ranking] = await Promise.all([browser.request('GET', '/api/main-data'), browser.request('GET', '/api/ranking?pageSize=5')]).catch(() => [undefined, undefined]);
        const figures = main?.status === 200 && ranking?.status === 200 ? { members: (main.body as { members: number }).members, sold: (main.body as { sold: number }).sold, ranked: (ranking.body as { total: number }).total } : undefined;
        if (figures) {
          if (figures.members < last.members || figures.sold < last.sold || figures.ranked < last.ranked) seen.push(`${JSON.stringify(last)} -> ${JSON.stringify(figures)}`);
          last = figures;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      await load.untilAcked(30, 60_000);
      const before = await activeKeyspace();
      // The new release's first projector: it builds beside, then takes readers over.
      await cluster.start('projector-c', {}, next.root);
      await until('the new version leads', async () => (await leadership('projector-c')).role === 'leader');
      const after = await activeKeyspace();
      expect(after.active).not.toBe(before.active);
      expect(after.active.startsWith('bg-')).toBe(true);
      for (const old of ['projector-a', 'projector-b']) expect(await leadership(old)).toMatchObject({ role: 'standby' });
      await load.untilAcked(15, 60_000);
      // The rest, one process at a time: command-api, query-api, the old projectors.
      await cluster.start('command-api-2', {}, next.root);
      commandApi = 'command-api-2';
      await cluster.services.get('command-api')!.stop('SIGTERM');
      cluster.services.delete('command-api');
      await cluster.start('query-b', { COMMAND_API_URL: cluster.url('command-api-2') }, next.root);
      queryApi = 'query-b';
      await cluster.services.get('query-a')!.stop('SIGTERM');
      cluster.services.delete('query-a');
      for (const old of ['projector-a', 'projector-b']) {
        await cluster.services.get(old)!.stop('SIGTERM');
        cluster.services.delete(old);
      }
      await cluster.start('projector-d', {}, next.root);
      expect(await leadership('projector-d')).toMatchObject({ role: 'standby', holder: 'projector-c' });
      await load.untilAcked(15, 60_000);
    } finally {
      await load.stop();
      reading = false;
      await reader;
    }
    expect(seen).toEqual([]);
    await cluster.projectorCaughtUp(60_000);
    await new Promise((r) => setTimeout(r, 6_000));
    const end = await activeKeyspace();
    expect(end.all).toEqual([end.active]);
    const { live, rebuilt, events } = await cluster.liveAndRebuilt();
    expect(live).toEqual(rebuilt);
    tally.note('events', events);
    await expectNothingLostOrHalfDone(await cluster.store(), load.acks, tally);
  }, 240_000);
});
