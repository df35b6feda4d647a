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
    let lastFailure: { at: string } | null = null;
    metrics.running.add({
      status: async () => {
        scans++;
        return { keyspace: 'ks0', lagEvents, lagSeconds: 3 };
      },
      health: () => ({ keyspace: 'ks0', lastFailure }),
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
    // No failure yet reads 0; a failure shows its time (seconds) until the next one.
    expect(third).toMatch(/pass_projector_last_error_timestamp_seconds\{keyspace="ks0"\} 0/);
    lastFailure = { at: '2026-11-24T10:00:00.000Z' };
    expect(await registry.metrics()).toMatch(/pass_projector_last_error_timestamp_seconds\{keyspace="ks0"\} 1795514400/);
  });
});
