/**
 * Projector failover in the distributed layout (PostgreSQL store, Redis read models): two
 * projectors as a hot/standby group, one query-api, one command-api and members sending a chat
 * message every 50 ms between them. The leader is SIGKILLed, BENCH_FAILOVER_RUNS times (the
 * killed one restarted as the standby before the next run), and each time the bench times from
 * the kill to the first batch the new leader stores (the readers' keyspace's checkpoint moves)
 * and to the first live push (a socket on query-api hears a message sent after the kill).
 * Target: within the lease (PROJECTOR_LEASE_MS, default 5 s). Then
 * the cost of the lease on a batch: one-event batches stored alternately with and without a
 * fencing epoch, in-process on the same Redis.
 *
 *   node --import tsx bench/failover.ts     (BENCH_FAILOVER_RUNS=5, BENCH_LEASE_MS=5000)
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { io as connect } from 'socket.io-client';
import { testRedisUrl } from '@pass/events/test-support';
import { Browser } from '@pass/infra/test-support';
import { Cluster } from '@pass/infra/test-support/faults';
import { createRedisReadModels, deleteKeysUnder, emptyMain, RedisLease, type Keyspace, type WriteBatch } from '@pass/projector';

export const COMMAND = 'node --import tsx bench/failover.ts';
const RUNS = Number(process.env.BENCH_FAILOVER_RUNS ?? 5);
const LEASE_MS = Number(process.env.BENCH_LEASE_MS ?? 5_000);
const BATCHES = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Failover {
  killed: string;
  firstBatchMs: number;
  firstPushMs: number;
}

async function leaderOf(cluster: Cluster, names: string[]): Promise<string> {
  for (;;) {
    for (const name of names) {
      const status = (await (await fetch(`${cluster.url(name)}/status`)).json()) as { leadership: { role: string } };
      if (status.leadership.role === 'leader') return name;
    }
    await sleep(50);
  }
}

/** Chat messages sent and heard: when each was sent and when a socket on query-api heard it. */
class Chatter {
  readonly sentAt = new Map<string, number>();
  readonly heardAt = new Map<string, number>();
  private running = true;
  private loop: Promise<void> = Promise.resolve();

  /** One message every 50 ms, round robin over members (each stays within 5 messages per 10 s and its 10 points). */
  start(members: Browser[]): void {
    this.loop = (async () => {
      for (let i = 0; this.running; i++) {
        const text = `failover ${i}`;
        this.sentAt.set(text, performance.now());
        void members[i % members.length]!.request('POST', '/api/chat-messages', { message: text }).catch(() => undefined);
        await sleep(50);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** The first message sent after `at` that a socket heard, and when (ms after `at`). */
  firstHeardAfter(at: number): number {
    let first = Number.POSITIVE_INFINITY;
    for (const [text, heard] of this.heardAt) if ((this.sentAt.get(text) ?? 0) > at) first = Math.min(first, heard);
    return first - at;
  }
}

/** Kills the leader and times its successor's first stored batch and first live push. */
async function oneFailover(cluster: Cluster, redis: Redis, chatter: Chatter): Promise<Failover> {
  const killed = await leaderOf(cluster, ['projector-a', 'projector-b']);
  const keyspace = await createRedisReadModels({ redis, root: `${cluster.prefix}rm`, activeCacheMs: 0 }).active();
  const killedAt = performance.now();
  await cluster.kill(killed);
  // Batches stored until the kill reached Redis: the checkpoint as it stands just after it.
  const before = await keyspace.checkpoint();
  let firstBatchMs = Number.NaN;
  while (Number.isNaN(firstBatchMs) && performance.now() - killedAt < 6 * LEASE_MS) {
    if ((await keyspace.checkpoint()) !== before) firstBatchMs = performance.now() - killedAt;
    else await sleep(5);
  }
  while (!Number.isFinite(chatter.firstHeardAfter(killedAt)) && performance.now() - killedAt < 6 * LEASE_MS) await sleep(5);
  const firstPushMs = chatter.firstHeardAfter(killedAt);
  await cluster.start(killed);
  await sleep(2_000);
  return { killed, firstBatchMs, firstPushMs: Number.isFinite(firstPushMs) ? firstPushMs : Number.NaN };
}

/** Members who join through command-api (10 points each: a message apiece). */
async function members(cluster: Cluster, count: number): Promise<Browser[]> {
  const joined: Browser[] = [];
  for (let i = 0; i < count; i += 5) {
    const batch = Array.from({ length: Math.min(5, count - i) }, (_, k) => {
      const member = new Browser(cluster.url('command-api'));
      // Each behind an address of its own, as members are (joins are limited per address).
      member.address = `10.3.${(i + k) >> 8}.${((i + k) & 255) + 1}`;
      return member;
    });
    await Promise.all(batch.map((b, k) => b.request('POST', '/api/register-user', { email: `failover${i + k}@example.com`, password: 'pass1' })));
    joined.push(...batch);
  }
  return joined;
}

async function failovers(): Promise<Failover[]> {
  const cluster = new Cluster({ redisUrl: testRedisUrl(), env: { PROJECTOR_LEASE_MS: String(LEASE_MS) } });
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  const chatter = new Chatter();
  try {
    await cluster.start('command-api');
    await cluster.start('projector-a');
    await leaderOf(cluster, ['projector-a']);
    await Promise.all([cluster.start('projector-b'), cluster.start('query-a')]);
    const socket = connect(cluster.url('query-a'), { transports: ['websocket'] });
    socket.on('chatMessage', (m) => chatter.heardAt.has(m.message) || chatter.heardAt.set(m.message, performance.now()));
    // Enough members for every run's messages: 20 a second, a message per member's point.
    chatter.start(await members(cluster, Math.ceil((RUNS * 10 * 20) / 10) + 20));
    await sleep(2_000);
    const runs: Failover[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await oneFailover(cluster, redis, chatter));
    socket.disconnect();
    return runs;
  } finally {
    await chatter.stop();
    await cluster.close();
    redis.disconnect();
  }
}

/** Per-batch time of `count` one-event batches into `keyspace` (ms, sorted). */
async function batchTimes(keyspace: Keyspace, count: number, from: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = from; i < from + count; i++) {
    const batch: WriteBatch = { expectedCheckpoint: i === 0 ? null : String(i), checkpoint: String(i + 1), writes: [{ op: 'main', main: { ...emptyMain(), globalMessages: i } }] };
    const started = performance.now();
    await keyspace.apply(batch);
    times.push(performance.now() - started);
  }
  return times;
}

/** The lease's cost on a batch: the same one-event batches, fenced and not, alternating in rounds. */
async function leaseCost(): Promise<{ fenced: number[]; plain: number[] }> {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  const roots = [`bench:failover:${randomUUID()}`, `bench:failover:${randomUUID()}`];
  try {
    const lease = new RedisLease(redis, roots[0]!, 'bench', 60_000);
    await lease.renew();
    const fenced = createRedisReadModels({ redis, root: roots[0]!, fencing: lease }).keyspace('ks0');
    const plain = createRedisReadModels({ redis, root: roots[1]! }).keyspace('ks0');
    const out = { fenced: [] as number[], plain: [] as number[] };
    const round = BATCHES / 10;
    for (let r = 0; r < 10; r++) {
      out.fenced.push(...(await batchTimes(fenced, round, r * round)));
      out.plain.push(...(await batchTimes(plain, round, r * round)));
    }
    return { fenced: out.fenced.sort((a, b) => a - b), plain: out.plain.sort((a, b) => a - b) };
  } finally {
    for (const root of roots) await deleteKeysUnder(redis, root);
    redis.disconnect();
  }
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

export async function run(): Promise<{ title: string; markdown: string }> {
  const runs = await failovers();
  const cost = await leaseCost();
  const s = (ms: number) => (Number.isNaN(ms) ? 'none' : `${(ms / 1000).toFixed(2)} s`);
  const worst = Math.max(...runs.map((r) => r.firstPushMs));
  const markdown = [
    `Command: \`${COMMAND}\` (BENCH_FAILOVER_RUNS=${RUNS}, lease ${LEASE_MS} ms, renewed every third of it). Two projectors, one query-api and one command-api as processes on PostgreSQL and Redis, members sending a chat message every 50 ms between them; the leader is SIGKILLed in each run, and the killed one restarted as the standby before the next.`,
    '',
    '| Run | Killed | Kill → first batch stored by the new leader | Kill → first live push | Limit |',
    '|---|---|---:|---:|---|',
    ...runs.map((r, i) => `| ${i + 1} | ${r.killed} | ${s(r.firstBatchMs)} | ${s(r.firstPushMs)} | ≤ ${s(LEASE_MS)}: ${r.firstPushMs <= LEASE_MS ? 'ok' : '**not met**'} |`),
    '',
    `Worst kill → first push: ${s(worst)}. An unreleased lease lives 80% of PROJECTOR_LEASE_MS after its last renewal (renewed every third of that), and a standby tries again as it runs out; then the new leader raises the fence, catches up and stores.`,
    '',
    `The lease's cost on a batch (${BATCHES.toLocaleString('en-US')} one-event batches each way, alternating in rounds of ${BATCHES / 10}, same Redis): fenced p50 / p99 ${pct(cost.fenced, 50).toFixed(3)} / ${pct(cost.fenced, 99).toFixed(3)} ms, unfenced ${pct(cost.plain, 50).toFixed(3)} / ${pct(cost.plain, 99).toFixed(3)} ms. The command path does not touch the lease.`,
    '',
    `Load average after the run: ${loadavg().map((l) => l.toFixed(2)).join(' / ')} (the machine is shared).`,
  ].join('\n');
  return { title: 'Projector failover', markdown };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { markdown } = await run();
  process.stdout.write(`${markdown}\n`);
}
