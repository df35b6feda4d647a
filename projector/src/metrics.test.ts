import { afterEach, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { LAG_MEASURE_MIN_MS, projectorMetrics } from './metrics';

describe('projector lag gauges', () => {
  afterEach(() => vi.restoreAllMocks());

  it('given scrapes closer than the minimum interval, then the store is scanned once and later scrapes see the new lag', async () => {
    let now = 10_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const registry = new Registry();
    const metrics = projectorMetrics(registry);
    let scans = 0;
    let lagEvents = 10_000;
    metrics.running.add({
      status: async () => {
        scans++;
        return { keyspace: 'ks0', lagEvents, lagSeconds: 3 };
      },
    });

    const first = await registry.metrics();
    lagEvents = 4_200;
    now += LAG_MEASURE_MIN_MS / 5;
    const second = await registry.metrics();
    expect(scans).toBe(1);
    expect(first).toMatch(/pass_projector_lag_events\{keyspace="ks0"\} 10000/);
    expect(second).toMatch(/pass_projector_lag_events\{keyspace="ks0"\} 10000/);

    now += LAG_MEASURE_MIN_MS;
    const third = await registry.metrics();
    expect(scans).toBe(2);
    expect(third).toMatch(/pass_projector_lag_events\{keyspace="ks0"\} 4200/);
    expect(third).toMatch(/pass_projector_lag_seconds\{keyspace="ks0"\} 3/);
  });
});
