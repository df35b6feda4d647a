/**
 * Projection throughput: events/s through the real projections into the memory adapter and
 * into Redis (snapshot read + one checkpointed Lua script per batch), against a raw Redis
 * pipeline of exactly the same writes (no snapshot, no script, no checkpoint) as the ceiling.
 *
 *   node --import tsx bench/projections.ts
 *
 * Redis at TEST_REDIS_URL (default redis://127.0.0.1:6379), under a fresh key prefix removed
 * afterwards. Events come from the deterministic generator (register, free points, purchase,
 * claim, card, chat, and admin actions). BENCH_ADAPTERS=memory skips Redis (e.g. to profile with
 * `node --cpu-prof`).
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Redis, type ChainableCommander } from 'ioredis';
import { canConnect, testRedisUrl } from '@pass/events/test-support';
import { projectInto, UNPROJECTED_TYPES } from '@pass/projector';
import type { PositionedEvent } from '@pass/projector';
import { positioned } from '@pass/projector/test-support';
import { createMemoryReadModels } from '@pass/projector';
import { createRedisReadModels } from '@pass/projector';
import { deleteKeysUnder } from '@pass/projector';
import { CHAT_HISTORY_LIMIT, type ReadModelWrite } from '@pass/projector';
import { generateEvents } from '@pass/projector/test-support';
import { decryptEvents, encryptEvent, MemoryKeyStore, personalFieldsOf } from '@pass/events/personal-data';

export const COMMAND = 'node --import tsx bench/projections.ts';
const USERS = 20_000;
const BATCH = 500;

interface Row {
  target: string;
  events: number;
  seconds: number;
}

/** The same writes as plain commands, pipelined: what Redis can take without our guarantees. */
function pipelineWrites(pipe: ChainableCommander, p: string, writes: ReadModelWrite[]): void {
  for (const w of writes) {
    switch (w.op) {
      case 'main':
        pipe.set(`${p}main`, JSON.stringify(w.main));
        break;
      case 'user':
        pipe.hset(`${p}rows`, w.row.key, JSON.stringify(w.row));
        pipe.hset(`${p}uid`, w.row.userId, w.row.key);
        break;
      case 'zadd':
        pipe.zadd(`${p}z:${w.set}`, w.score, w.member);
        break;
      case 'zrem':
        pipe.zrem(`${p}z:${w.set}`, w.member);
        break;
      case 'country':
        pipe.zincrby(`${p}countries`, -w.delta, w.country);
        break;
      case 'chatPush':
        pipe.rpush(`${p}chat`, JSON.stringify(w.message));
        pipe.ltrim(`${p}chat`, -CHAT_HISTORY_LIMIT, -1);
        break;
      case 'chatClear':
        pipe.del(`${p}chat`);
        break;
      case 'posts':
        pipe.set(`${p}posts`, JSON.stringify(w.posts));
        break;
    }
  }
}

const chunks = (events: PositionedEvent[]) => {
  const out: PositionedEvent[][] = [];
  for (let i = 0; i < events.length; i += BATCH) out.push(events.slice(i, i + BATCH));
  return out;
};

/**
 * Batches as the store holds them (personal fields sealed), decrypted one batch at a time as the
 * projector's subscription does (types no projection reads left sealed).
 */
const SEALED = new Set<string>(UNPROJECTED_TYPES);
async function projectDecrypted(target: Parameters<typeof projectInto>[0], batches: PositionedEvent[][], keys: MemoryKeyStore): Promise<void> {
  for (const b of batches) {
    const clear = await decryptEvents(
      b.map((p) => p.event),
      keys,
      (e) => SEALED.has(e.type),
    );
    await projectInto(
      target,
      b.map((p, i) => ({ position: p.position, event: clear[i]! })),
    );
  }
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const events = positioned([...generateEvents({ users: USERS, seed: 42 })]);
  const batches = chunks(events);
  const rows: Row[] = [];
  const notes: string[] = [];

  const memory = await createMemoryReadModels().active();
  let t = performance.now();
  for (const b of batches) await projectInto(memory, b);
  rows.push({ target: 'memory adapter (projections + apply)', events: events.length, seconds: (performance.now() - t) / 1000 });
  const heap = process.memoryUsage().heapUsed;
  notes.push(`Heap used after the memory run: ${(heap / 2 ** 20).toFixed(0)} MiB (read models, events and everything else alive).`);

  // The same events as the store holds them (personal fields encrypted), decrypted a batch at a
  // time as the store's reads do: one key look-up per batch, keys in memory.
  const keys = new MemoryKeyStore();
  const owners = [...new Set(events.flatMap((p) => (personalFieldsOf(p.event.type) ? [String((p.event.data as Record<string, unknown>).userId)] : [])))];
  const memberKeys = await keys.keysFor(owners, { create: true });
  const encrypted = chunks(events.map((p) => ({ ...p, event: encryptEvent(p.event, memberKeys) })));
  const decrypting = await createMemoryReadModels().active();
  t = performance.now();
  await projectDecrypted(decrypting, encrypted, keys);
  rows.push({ target: 'memory adapter, batches decrypted first (personal fields encrypted at rest)', events: events.length, seconds: (performance.now() - t) / 1000 });

  const u = new URL(testRedisUrl());
  const adapters = (process.env.BENCH_ADAPTERS ?? 'memory,redis').split(',');
  if (!adapters.includes('redis')) {
    notes.push('Redis not run (BENCH_ADAPTERS).');
  } else if (await canConnect(u.hostname || '127.0.0.1', Number(u.port || 6379))) {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    const root = `bench:rm:${randomUUID()}`;
    const rawRoot = `bench:raw:${randomUUID()}`;
    try {
      const ks = await createRedisReadModels({ redis, root }).active();
      // The raw pipeline replays the writes of this run (the same as the memory run's: the
      // projections are pure); kept from here so the memory timing holds no extra garbage.
      const recorded: ReadModelWrite[][] = [];
      t = performance.now();
      for (const b of batches) recorded.push((await projectInto(ks, b)).batch?.writes ?? []);
      rows.push({ target: 'Redis adapter (snapshot + projections + Lua with checkpoint)', events: events.length, seconds: (performance.now() - t) / 1000 });

      // The distributed projector's real path: batches as the store holds them, decrypted first.
      const decryptingKs = await createRedisReadModels({ redis, root: `${root}:decrypting` }).active();
      t = performance.now();
      await projectDecrypted(decryptingKs, encrypted, keys);
      rows.push({ target: 'Redis adapter, batches decrypted first (personal fields encrypted at rest)', events: events.length, seconds: (performance.now() - t) / 1000 });

      t = performance.now();
      const p = `${rawRoot}:ks0:`;
      for (const writes of recorded) {
        const pipe = redis.pipeline();
        pipelineWrites(pipe, p, writes);
        await pipe.exec();
      }
      rows.push({ target: 'raw Redis pipeline of the same writes (no guarantees)', events: events.length, seconds: (performance.now() - t) / 1000 });
      const writes = recorded.reduce((n, w) => n + w.length, 0);
      notes.push(`${writes.toLocaleString('en-US')} writes for ${events.length.toLocaleString('en-US')} events (${(writes / events.length).toFixed(1)} per event), ${batches.length} batches of ${BATCH}.`);
    } finally {
      await deleteKeysUnder(redis, root);
      await deleteKeysUnder(redis, rawRoot);
      redis.disconnect();
    }
  } else {
    notes.push(`SKIPPED: Redis (cannot reach ${u.hostname}:${u.port || 6379})`);
  }

  const lines = [
    `Command: \`${COMMAND}\`. ${USERS.toLocaleString('en-US')} generated users, ${events.length.toLocaleString('en-US')} events, batches of ${BATCH}.`,
    '',
    '| target | events | seconds | events/s |',
    '|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.target} | ${r.events.toLocaleString('en-US')} | ${r.seconds.toFixed(2)} | ${Math.round(r.events / r.seconds).toLocaleString('en-US')} |`),
    '',
    ...notes,
  ];
  return { title: 'Projections', markdown: lines.join('\n') };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  process.stdout.write(`## ${title}\n\n${markdown}\n`);
}
