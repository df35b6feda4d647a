/**
 * Read latency with 1,000,000 members: ranking pages, search, the country top 5, and the bodies
 * of GET /api/main-data and GET /api/progress as built after a change (read + view + JSON), through the
 * same Keyspace calls query-api makes, on Redis (and the memory adapter with
 * BENCH_ADAPTERS=redis,memory: a longer run with a much larger heap). The read model is seeded
 * from generated events through the real projections (register, purchase, claim, card for every
 * member), so the keys are exactly what production writes.
 *
 *   node --import tsx bench/queries.ts            (BENCH_MEMBERS=200000 for a quicker run)
 *
 * Redis at TEST_REDIS_URL (default redis://127.0.0.1:6379), under a fresh key prefix removed
 * afterwards. Latencies are sequential single requests (no concurrency), p50/p99/max.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { prepareJson, type DomainEvent } from '@pass/events';
import { canConnect, testRedisUrl } from '@pass/events/test-support';
import { projectInto } from '@pass/projector';
import type { PositionedEvent } from '@pass/projector';
import { at } from '@pass/projector/test-support';
import type { Keyspace } from '@pass/projector';
import { createMemoryReadModels } from '@pass/projector';
import { createRedisReadModels } from '@pass/projector';
import { deleteKeysUnder } from '@pass/projector';
import { parseQuery, progressBodyBuilder, readProgressView, searchTerms, toMainDataView } from '@pass/projector';
import { COUNTRIES, FIRST, LAST, generateEvents } from '@pass/projector/test-support';

export const COMMAND = 'node --import tsx bench/queries.ts';
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1_000_000);
const SEED_BATCH = 5_000;
const SAMPLES = 1_000;
const PAGE_SIZE = 50;
const TARGETS = { ranking: 5, search: 20, top5: 2, body: 2 };
const ADAPTERS = (process.env.BENCH_ADAPTERS ?? 'redis').split(',').map((a) => a.trim());

async function seed(ks: Keyspace): Promise<{ events: number; seconds: number }> {
  const started = performance.now();
  let batch: PositionedEvent[] = [];
  let n = 0;
  for (const event of generateEvents({ users: MEMBERS, seed: 1, allMembers: true, activity: 0 }) as Iterable<DomainEvent>) {
    batch.push({ position: at(++n), event });
    if (batch.length === SEED_BATCH) {
      await projectInto(ks, batch);
      batch = [];
    }
  }
  if (batch.length) await projectInto(ks, batch);
  return { events: n, seconds: (performance.now() - started) / 1000 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(fn: (i: number) => Promise<unknown>, options: { samples?: number; warmUp?: boolean } = {}): Promise<{ p50: number; p99: number; max: number }> {
  if (options.warmUp !== false) for (let i = 0; i < 50; i++) await fn(i);
  const times: number[] = [];
  for (let i = 0; i < (options.samples ?? SAMPLES); i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: times[times.length - 1]! };
}

type Figures = Array<[string, Awaited<ReturnType<typeof measure>>, number]>;

async function measureKeyspace(ks: Keyspace): Promise<{ rows: Figures; members: number }> {
  const main = await ks.main();
  const pages = Math.ceil(main.members / PAGE_SIZE);
  // Deterministic spread of pages and terms.
  const pick = (i: number, n: number) => (i * 7919) % n;
  const names = ['ana', 'bob', 'chen', 'fatima', 'jose', 'yuki', 'garcia', 'nguyen', 'khan', 'rossi'];
  const countries = ['peru', 'japan', 'kenya', 'canada', 'india'];
  // As query-api's searchUsers asks: the terms for the text index, the word-start sets beside them.
  const search = (q: string | undefined, page: number, registry: boolean) => {
    const terms = searchTerms(q);
    return ks.users({
      membersOnly: !registry,
      sets: parseQuery(q, registry).sets,
      ...(terms.length > 0 ? { text: { terms, registry, posted: false } } : {}),
      offset: (page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
  };
  const ranking = (q: string | undefined, page: number) => search(q, page, false);
  const registry = (q: string, page: number) => search(q, page, true);

  const rows: Figures = [];
  rows.push(['ranking, page 1', await measure(() => ranking(undefined, 1)), TARGETS.ranking]);
  rows.push(['ranking, any page (1…' + pages.toLocaleString('en-US') + ')', await measure((i) => ranking(undefined, 1 + pick(i, pages))), TARGETS.ranking]);
  rows.push(['search one name word, first pages', await measure((i) => ranking(names[i % names.length], 1 + (i % 5))), TARGETS.search]);
  rows.push(['search a country, any of the first 100 pages', await measure((i) => ranking(countries[i % countries.length], 1 + pick(i, 100))), TARGETS.search]);
  rows.push(['search a dd/mm/yyyy date', await measure((i) => ranking(`${String(1 + (i % 28)).padStart(2, '0')}/0${1 + (i % 9)}/2026`, 1)), TARGETS.search]);
  // Multi-word searches, each query text distinct so every request is a first request: they
  // intersect the smallest pair set of their word starts with the words' prefix sets and keep the
  // result INTERSECTION_TTL_MS, which the first request pays for and its next pages do not.
  const spread = <T>(xs: T[], n: number) => (xs.length <= n ? xs : Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!));
  const nameCountry = [...FIRST, ...LAST].flatMap((n) => COUNTRIES.map((c) => `${n} ${c.split(' ')[0]}`));
  const firstLast = FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`));
  const threeWords = spread(FIRST.flatMap((f) => LAST.flatMap((l) => COUNTRIES.map((c) => `${f} ${l} ${c}`))), 500);
  const firstRequest = (label: string, texts: string[]) =>
    [`search ${label}, FIRST request (${texts.length} distinct texts)`, texts] as const;
  for (const [label, texts] of [
    firstRequest('name word + country', nameCountry),
    firstRequest('first + last name', firstLast),
    firstRequest('"<name> united states"', [...FIRST, ...LAST].map((n) => `${n} united states`)),
    firstRequest('first + last name + country', threeWords),
    firstRequest('name word + dd/mm/yyyy date (not paired: one day of registrations)', [...FIRST, ...LAST].flatMap((n, i) => [1, 2, 3, 4, 5].map((m) => `${n} ${String(1 + ((i * 7 + m) % 28)).padStart(2, '0')}/0${m}/2026`))),
  ]) {
    rows.push([label, await measure((i) => ranking(texts[i], 1), { samples: texts.length, warmUp: false }), TARGETS.search]);
  }
  // Word prefixes: the first letters of first + last name, as typed into the box.
  const prefixes = [...new Set(firstLast.map((t) => t.split(' ').map((w) => w.slice(0, 3)).join(' ')))];
  const twoLetters = [...new Set(firstLast.map((t) => t.split(' ').map((w) => w.slice(0, 2)).join(' ')))];
  rows.push(['search a 3-letter name prefix, first pages', await measure((i) => ranking(names[i % names.length]!.slice(0, 3), 1 + (i % 5))), TARGETS.search]);
  rows.push([`search 3-letter prefixes of first + last name, FIRST request (${prefixes.length} distinct texts)`, await measure((i) => ranking(prefixes[i], 1), { samples: prefixes.length, warmUp: false }), TARGETS.search]);
  rows.push([`search 2-letter prefixes of first + last name (pair set alone), FIRST request (${twoLetters.length} distinct texts)`, await measure((i) => ranking(twoLetters[i], 1), { samples: twoLetters.length, warmUp: false }), TARGETS.search]);
  // Any part of a word or of the date (docs/architecture.md, "Search"): the text index.
  const inside = ['arc', 'guy', 'oss', 'ati', 'uki', 'aub', 'ens', 'wal', 'ada', 'ana'];
  const twoLetters2 = ['an', 'ar', 'er', 'in', 'on', 'en', 'ia', 'li', 'ma', 'ra'];
  rows.push(['search 3 letters from inside a word ("arc" in García), first pages', await measure((i) => ranking(inside[i % inside.length], 1 + (i % 5))), TARGETS.search]);
  rows.push(['search 2 letters ("an", "ar"…: 200,000–500,000 rows each), first pages', await measure((i) => ranking(twoLetters2[i % twoLetters2.length], 1 + (i % 5))), TARGETS.search]);
  rows.push(['search 2 letters, any of the first 1,000 pages', await measure((i) => ranking(twoLetters2[i % twoLetters2.length], 1 + pick(i, 1_000))), TARGETS.search]);
  rows.push(['search 2 letters + 3 letters from inside another word ("an oss")', await measure((i) => ranking(`${twoLetters2[i % twoLetters2.length]} ${inside[(i * 3) % inside.length]}`, 1)), TARGETS.search]);
  rows.push(['search one letter (nearly every row), first pages', await measure((i) => ranking('aeioun'[i % 6], 1 + (i % 5))), TARGETS.search]);
  const months = Array.from({ length: 9 }, (_, m) => `0${m + 1}/2026`);
  rows.push(['registry: part of the date (mm/yyyy, dd/mm, yyyy), first pages', await measure((i) => registry([months[i % 9]!, `${String(1 + (i % 28)).padStart(2, '0')}/0${1 + (i % 9)}`, '2026'][i % 3]!, 1 + (i % 5))), TARGETS.search]);
  rows.push(['registry: part of a date + 3 letters inside a name ("03/2026 arc")', await measure((i) => registry(`${months[i % 9]} ${inside[i % inside.length]}`, 1)), TARGETS.search]);
  rows.push(['search first + last name, pages 2…6 of a recent search', await measure((i) => ranking(firstLast[i % 20], 2 + (i % 5))), TARGETS.search]);
  rows.push([
    'search three words, pages 2…6 of a recent search (cached intersection)',
    await measure((i) => ranking(threeWords[i % 20], 2 + (i % 5))),
    TARGETS.search,
  ]);
  rows.push([
    'registry search by e-mail',
    await measure((i) => ks.users({ membersOnly: false, sets: [], email: `member${pick(i, MEMBERS)}@example.com`, offset: 0, limit: PAGE_SIZE })),
    TARGETS.search,
  ]);
  rows.push(['country top 5', await measure(() => ks.countries(5)), TARGETS.top5]);
  // The two shared bodies as query-api builds them after a batch (versionedBody's miss); between
  // batches both are the same cached bytes, so a hit costs the two routes alike.
  rows.push(['GET /api/main-data body, built after a change (figures + JSON)', await measure(async () => prepareJson(toMainDataView(await ks.main()))), TARGETS.body]);
  const days = (await readProgressView(ks)).days.length;
  // After a batch only the last day is read and serialised (progressBodyBuilder); the whole
  // series is read once a UTC day (a new day) or after a rebuild.
  const progressBody = progressBodyBuilder();
  await progressBody(ks);
  rows.push([
    `GET /api/progress body, built after a batch (figures + last day read, ${days.toLocaleString('en-US')} days, + JSON)`,
    await measure(() => progressBody(ks)),
    TARGETS.body,
  ]);
  rows.push([
    `GET /api/progress body, whole series read (once a UTC day or after a rebuild: figures + ${days.toLocaleString('en-US')} days, gaps filled, + JSON)`,
    await measure(async () => prepareJson(await readProgressView(ks))),
    TARGETS.search,
  ]);
  return { rows, members: main.members };
}

/** How long a reader takes to load its copy of the text index, and the memory it adds to the process. */
async function measureMirrorLoad(prepare: () => Promise<boolean>): Promise<{ seconds: number; mib: number }> {
  const held = () => {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  global.gc?.();
  const before = held();
  const started = performance.now();
  if (!(await prepare())) throw new Error('the text index copy did not load');
  const seconds = (performance.now() - started) / 1000;
  global.gc?.();
  return { seconds, mib: (held() - before) / 2 ** 20 };
}

function table(rows: Figures): string[] {
  const ms = (x: number) => x.toFixed(2);
  return [
    '| query | p50 ms | p99 ms | max ms | target p99 | |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map(([name, r, target]) => `| ${name} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | < ${target} ms | ${r.p99 < target ? 'ok' : 'MISSED'} |`),
  ];
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const sections: string[] = [];
  const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ');
  const header = `Command: \`${COMMAND}\`. ${SAMPLES.toLocaleString('en-US')} sequential requests per row (warm-up excluded), page size ${PAGE_SIZE}, through the Keyspace calls query-api makes (HTTP and JSON not included). FIRST-request rows send each query text once, with no warm-up. Every search goes through the text index (any part of a word or of the date: docs/architecture.md, "Search"), which keeps nothing between requests: each request finds and counts its matches anew. On Redis the index is the reading process's copy, loaded before the rows are measured (its load time and size are given); rows and ranks come from Redis.`;
  let members = MEMBERS;
  if (ADAPTERS.includes('redis')) {
    const u = new URL(testRedisUrl());
    if (!(await canConnect(u.hostname || '127.0.0.1', Number(u.port || 6379)))) {
      sections.push(`SKIPPED: Redis (cannot reach ${u.hostname}:${u.port || 6379})`);
    } else {
      const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
      const root = `bench:rmq:${randomUUID()}`;
      try {
        const ks = await createRedisReadModels({ redis, root }).active();
        const loadBefore = load();
        const usedMemory = async () => Number((await redis.info('memory')).match(/used_memory:(\d+)/)?.[1] ?? NaN);
        // Keys unlinked just before (an earlier run) are freed in the background: wait for them.
        for (let i = 0; i < 100 && !/lazyfree_pending_objects:0\b/.test(await redis.info('memory')); i++) await new Promise((r) => setTimeout(r, 100));
        const memoryBefore = await usedMemory();
        const seeded = await seed(ks);
        const memoryAfter = await usedMemory();
        const memory = `${(memoryAfter / 2 ** 30).toFixed(2)} GiB, of which ${((memoryAfter - memoryBefore) / 2 ** 30).toFixed(2)} GiB added by the seeding`;
        const mirror = await measureMirrorLoad(() => ks.prepareSearch());
        const figures = await measureKeyspace(ks);
        members = figures.members;
        sections.push(
          `### Redis\n\n${figures.members.toLocaleString('en-US')} members seeded through the projections from ${seeded.events.toLocaleString('en-US')} events in ${seeded.seconds.toFixed(1)} s (${Math.round(seeded.events / seeded.seconds).toLocaleString('en-US')} events/s, batches of ${SEED_BATCH.toLocaleString('en-US')}); Redis used_memory ${memory} (whole server). The reader's copy of the text index loaded in ${mirror.seconds.toFixed(1)} s and holds ${mirror.mib.toFixed(0)} MiB of that process (heap and buffers). Load average ${loadBefore} before, ${load()} after (2 cores shared with the other engineers' processes).\n\n${table(figures.rows).join('\n')}`,
        );
      } finally {
        await deleteKeysUnder(redis, root);
        redis.disconnect();
      }
    }
  }
  if (ADAPTERS.includes('memory')) {
    const ks = await createMemoryReadModels().active();
    const seeded = await seed(ks);
    const heap = (process.memoryUsage().heapUsed / 2 ** 30).toFixed(2);
    const figures = await measureKeyspace(ks);
    members = figures.members;
    sections.push(
      `### Memory adapter (standalone)\n\n${figures.members.toLocaleString('en-US')} members projected from ${seeded.events.toLocaleString('en-US')} events in ${seeded.seconds.toFixed(1)} s (${Math.round(seeded.events / seeded.seconds).toLocaleString('en-US')} events/s); heap used ${heap} GiB. Load average ${load()}.\n\n${table(figures.rows).join('\n')}`,
    );
  }
  return { title: `Queries (${members.toLocaleString('en-US')} members)`, markdown: [header, '', ...sections.flatMap((s) => [s, ''])].join('\n') };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  process.stdout.write(`## ${title}\n\n${markdown}\n`);
}
