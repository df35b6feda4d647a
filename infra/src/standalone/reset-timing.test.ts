import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Actor } from '../test-support/hostile/client';
import type { SpawnedService } from '../test-support/spawn-process';
import { standaloneSite } from '../test-support/standalone-site';

/**
 * Whether an address is registered must not show in the time of a reset request, nor in the
 * time of the request right after it (the work the server does after answering delays it).
 * Registered and unknown addresses are asked for in pairs, in random order, each followed at
 * once by a probe; the two groups' times are compared as distributions, never as single samples.
 */

const PAIRS = 50;
/** Pairs run first and not counted: the process's code is still being compiled. */
const WARM_UP = 8;
/** Room between two requests, so the work after one has finished before the next is sent. */
const SETTLE_MS = 120;
/** Two-sided 0.01% level of the Mann-Whitney U statistic's normal approximation. */
const Z_LIMIT = 3.89;

const { start } = standaloneSite('reset-timing');
let app: SpawnedService;
beforeAll(async () => {
  app = await start();
}, 60_000);

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));
const elapsed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

/**
 * The Mann-Whitney U statistic of `a` against `b` as a z-score (ties share their mean rank and
 * shrink the variance): positive when `a` tends to be larger.
 */
function mannWhitneyZ(a: readonly number[], b: readonly number[]): number {
  const all = [...a.map((value) => ({ value, first: true })), ...b.map((value) => ({ value, first: false }))].sort((x, y) => x.value - y.value);
  let rankSumA = 0;
  let ties = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.value === all[i]!.value) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (all[k]!.first) rankSumA += rank;
    const t = j - i + 1;
    ties += t ** 3 - t;
    i = j + 1;
  }
  const n1 = a.length;
  const n2 = b.length;
  const n = n1 + n2;
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const sd = Math.sqrt(((n1 * n2) / 12) * (n + 1 - ties / (n * (n - 1))));
  return (u - (n1 * n2) / 2) / sd;
}

/** The `p` quantile (0..1) by linear interpolation. */
function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const at = p * (sorted.length - 1);
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
}

/** A seeded pseudo-random source (mulberry32): the same samples always get the same margins. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * How far apart the `p` quantiles of two groups of these sizes fall by chance alone, on this
 * run's own times: the `level` quantile of that gap over random splits of the pooled times
 * (a permutation test's margin).
 */
function chanceGap(a: readonly number[], b: readonly number[], p: number, level: number, splits = 20_000): number {
  const pooled = [...a, ...b];
  const random = seeded(pooled.length);
  const gaps: number[] = [];
  for (let s = 0; s < splits; s++) {
    for (let i = pooled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [pooled[i], pooled[j]] = [pooled[j]!, pooled[i]!];
    }
    gaps.push(Math.abs(quantile(pooled.slice(0, a.length), p) - quantile(pooled.slice(a.length), p)));
  }
  return quantile(gaps, level);
}

/**
 * Two samples of one quantity that should not differ: no shift by the U test, and medians and
 * upper quartiles no further apart than chance puts them once in 10,000 splits of this run's
 * times (a busy machine widens the margin instead of failing the check). Each check errs on
 * equal samples about once in 10,000 runs.
 */
function expectSameDistribution(name: string, registered: number[], unknown: number[]): void {
  const summary = (xs: number[]) => `p25 ${quantile(xs, 0.25).toFixed(2)}, p50 ${quantile(xs, 0.5).toFixed(2)}, p75 ${quantile(xs, 0.75).toFixed(2)} ms`;
  const z = mannWhitneyZ(registered, unknown);
  const report = `${name}: registered ${summary(registered)}; unknown ${summary(unknown)}; U test z = ${z.toFixed(2)}`;
  expect(Math.abs(z), report).toBeLessThan(Z_LIMIT);
  for (const p of [0.5, 0.75]) {
    const gap = Math.abs(quantile(registered, p) - quantile(unknown, p));
    const margin = chanceGap(registered, unknown, p, 0.9999);
    expect(gap, `${report}; p${p * 100} apart by ${gap.toFixed(2)} ms, chance allows ${margin.toFixed(2)} ms`).toBeLessThanOrEqual(margin);
  }
}

describe('the comparison itself', () => {
  it('finds a shift between two samples, and none between a sample and itself', () => {
    const low = Array.from({ length: 10 }, (_, i) => i + 1);
    const high = low.map((v) => v + 10);
    // U = 0 against a mean of 50 and a standard deviation of √175.
    expect(mannWhitneyZ(low, high)).toBeCloseTo(-50 / Math.sqrt(175), 10);
    expect(mannWhitneyZ(high, low)).toBeCloseTo(50 / Math.sqrt(175), 10);
    expect(mannWhitneyZ(low, [...low].reverse())).toBe(0);
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
  });
});

describe('standalone: a reset request costs the same for a registered and an unknown address', () => {
  it(`${PAIRS} + ${PAIRS} requests, each followed by a probe: the answers and the probes' times have the same distribution`, { timeout: 240_000 }, async () => {
    const registered: string[] = [];
    for (let i = 0; i < PAIRS + WARM_UP; i++) {
      const email = `timing-${randomUUID().slice(0, 8)}@example.com`;
      expect((await new Actor(app.url).send('POST', '/api/register-user', { json: { email, password: 'pass1' } })).status).toBe(201);
      registered.push(email);
    }
    await wait(500);

    const times = { registered: { answer: [] as number[], probe: [] as number[] }, unknown: { answer: [] as number[], probe: [] as number[] } };
    const probe = new Actor(app.url);
    for (let i = 0; i < PAIRS + WARM_UP; i++) {
      const kinds = Math.random() < 0.5 ? (['registered', 'unknown'] as const) : (['unknown', 'registered'] as const);
      for (const kind of kinds) {
        const email = kind === 'registered' ? registered[i]! : `nobody-${randomUUID().slice(0, 8)}@example.com`;
        // A fresh client address per request: the per-client limit on reset requests stays out of the way.
        let status = 0;
        const answer = await elapsed(async () => {
          status = (await new Actor(app.url).send('POST', '/api/password-reset', { json: { email } })).status;
        });
        const probed = await elapsed(() => probe.send('GET', '/api/main-data'));
        expect(status).toBe(202);
        if (i >= WARM_UP) {
          times[kind].answer.push(answer);
          times[kind].probe.push(probed);
        }
        await wait(SETTLE_MS);
      }
    }

    expectSameDistribution('the answer', times.registered.answer, times.unknown.answer);
    expectSameDistribution('the request right after it', times.registered.probe, times.unknown.probe);
  });
});
