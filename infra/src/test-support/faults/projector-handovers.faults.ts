import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisReadModels } from '@pass/projector';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { Browser } from '../client';
import { roamingSocket } from './checks';
import { Cluster } from './cluster';
import { Load, readEverything } from './load';
import { faultTally } from './tally';

/**
 * Rebuilds, a kill, restarts and a graceful handover of two projectors in a row, under a load
 * of members chatting and buying points and a reader polling the figures: afterwards one keyspace
 * is left and readers read it, every stored message was pushed to a socket exactly once, no
 * figure a reader saw went back, and the read models equal a clean rebuild.
 */
const pgUp = await requireService('infra faults: projector handovers (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra faults: projector handovers (Redis)', testRedisUrl(), 6379);
const tally = faultTally('projector handovers: rebuilds, a kill, restarts, a graceful stop');
const LEASE_MS = 2_000;
const ADMIN = { email: 'admin@example.com', password: 'admin-pass-123' };

describe.skipIf(!pgUp || !redisUp)('distributed: projector handovers in any order', () => {
  const cluster = new Cluster({
    redisUrl: testRedisUrl(),
    env: { PROJECTOR_LEASE_MS: String(LEASE_MS), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password },
  });
  afterAll(async () => {
    const codes = await cluster.close();
    expect(codes.every((c) => c === 0)).toBe(true);
  });

  const role = async (name: string): Promise<string> =>
    ((await (await fetch(`${cluster.url(name)}/status`)).json()) as { leadership: { role: string } }).leadership.role;
  const leader = async (): Promise<string> => {
    for (;;) {
      for (const name of ['projector-a', 'projector-b']) if (cluster.services.has(name) && (await role(name)) === 'leader') return name;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('leave one keyspace, each message pushed once and no figure going back', async () => {
    await cluster.start('command-api');
    await Promise.all([cluster.start('projector-a'), cluster.start('projector-b'), cluster.start('query-a')]);
    const admin = new Browser(cluster.url('command-api'));
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
    const adminReads = new Browser(cluster.url('query-a'));
    for (const [k, v] of admin.cookies) adminReads.cookies.set(k, v);

    const heard = new Map<string, number>();
    const watcher = roamingSocket([cluster.url('query-a')]);
    await new Promise((r) => setTimeout(r, 500));
    watcher.current().on('chatMessage', (m) => heard.set(m.message, (heard.get(m.message) ?? 0) + 1));
    const load = new Load({ origin: () => cluster.url('command-api'), clients: 4, stepMs: 250 });
    await load.start();
    const wentBack: string[] = [];
    let running = true;
    const reading = (async () => {
      let last = { globalMessages: 0, members: 0 };
      while (running) {
        const body = (await adminReads.request('GET', '/api/main-data')).body as { globalMessages?: number; members?: number };
        if (typeof body.globalMessages === 'number') {
          if (body.globalMessages < last.globalMessages) wentBack.push(`messages ${last.globalMessages} -> ${body.globalMessages}`);
          last = { globalMessages: body.globalMessages, members: body.members ?? 0 };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const rebuild = async () => {
      expect((await adminReads.request('POST', '/api/admin/projections/rebuild')).status).toBe(202);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const status = (await adminReads.request('GET', '/api/admin/projections')).body as { rebuild: { state: string; startedAt: string | null } };
        if (status.rebuild.state === 'idle' && status.rebuild.startedAt) return;
        if (Date.now() > deadline) throw new Error(`rebuild still ${status.rebuild.state}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    try {
      const more = () => load.untilAcked(8, 60_000);
      await more();
      await rebuild();
      await more();
      const first = await leader();
      await cluster.kill(first);
      tally.note('killed', first);
      const second = await leader();
      await more();
      await cluster.start(first);
      await rebuild();
      await more();
      await cluster.services.get(second)!.stop('SIGTERM');
      cluster.services.delete(second);
      expect(await leader()).toBe(first);
      await more();
      await cluster.start(second);
      await rebuild();
      await more();
    } finally {
      running = false;
      await Promise.all([load.stop(), reading]);
    }
    await cluster.projectorCaughtUp(60_000);
    await new Promise((r) => setTimeout(r, 1_000));
    watcher.close();

    // Every message the store holds reached the socket once: none lost to a handover, none twice.
    const stored = (await readEverything(await cluster.store())).filter((e) => e.type === 'ChatMessageSent').map((e) => (e.data as { message: string }).message);
    tally.note('messages stored', stored.length);
    expect(stored.length).toBeGreaterThan(30);
    expect(stored.filter((text) => heard.get(text) !== 1)).toEqual([]);
    expect(wentBack).toEqual([]);
    // Old keyspaces go 5 s after a switch.
    await new Promise((r) => setTimeout(r, 6_000));
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    try {
      const readModels = createRedisReadModels({ redis, root: `${cluster.prefix}rm` });
      expect(await readModels.list()).toEqual([await readModels.activeId()]);
    } finally {
      redis.disconnect();
    }
    const { live, rebuilt } = await cluster.liveAndRebuilt();
    expect(live).toEqual(rebuilt);
  });
});
