import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createOpsRouter, projectorCheck, readSideChecks } from './router';

/** A projector whose status the test sets. */
function fakeProjector(initial: { caughtUp: boolean; lagEvents: number; lagSeconds: number; lagEventsCapped?: boolean; lastError?: string | null }) {
  const state = { lastError: null as string | null, ...initial };
  return { state, status: async () => ({ ...state }) };
}

const maxLag = { events: 100, seconds: 30 };

describe('projectorCheck', () => {
  it('fails until caught up, naming the last error', async () => {
    const p = fakeProjector({ caughtUp: false, lagEvents: 0, lagSeconds: 0 });
    await expect(projectorCheck(() => p, maxLag).check()).rejects.toThrow('still catching up');
    p.state.lastError = 'store unreachable';
    await expect(projectorCheck(() => p, maxLag).check()).rejects.toThrow('store unreachable');
  });

  it('passes within the allowed lag, fails beyond it in events or seconds, and passes again by itself', async () => {
    const p = fakeProjector({ caughtUp: true, lagEvents: 100, lagSeconds: 30 });
    const check = projectorCheck(() => p, maxLag, 0);
    await expect(check.check()).resolves.toBeUndefined();

    p.state.lagEvents = 101;
    await expect(check.check()).rejects.toThrow(/behind by 101 events/);
    p.state.lagEvents = 0;
    p.state.lagSeconds = 31;
    await expect(check.check()).rejects.toThrow(/31 s/);
    p.state.lagSeconds = 0;
    await expect(check.check()).resolves.toBeUndefined();
  });

  it('names the projector\'s last error when it is behind', async () => {
    const p = fakeProjector({ caughtUp: true, lagEvents: 3, lagSeconds: 40, lastError: 'WRONGTYPE Operation against a key holding the wrong kind of value' });
    await expect(projectorCheck(() => p, maxLag).check()).rejects.toThrow(/behind by 3 events and 40 s .*; last error: WRONGTYPE/);
  });

  it('a burst of probes reads the projector\'s status once', async () => {
    const p = fakeProjector({ caughtUp: true, lagEvents: 0, lagSeconds: 0 });
    let reads = 0;
    const check = projectorCheck(() => ({ status: () => (reads++, p.status()) }), maxLag);
    await Promise.all([check.check(), check.check(), check.check()]);
    await check.check();
    expect(reads).toBe(1);
  });

  it('counts a capped count as at least the cap', async () => {
    const p = fakeProjector({ caughtUp: true, lagEvents: 100, lagSeconds: 0, lagEventsCapped: true });
    await expect(projectorCheck(() => p, maxLag).check()).rejects.toThrow(/behind by 100\+ events/);
  });

  it('without a limit, only catching up counts (as before)', async () => {
    const p = fakeProjector({ caughtUp: true, lagEvents: 1e6, lagSeconds: 1e6 });
    await expect(projectorCheck(() => p).check()).resolves.toBeUndefined();
  });

  it('asks the current live projector of a runtime each time', async () => {
    const first = fakeProjector({ caughtUp: true, lagEvents: 500, lagSeconds: 0 });
    const second = fakeProjector({ caughtUp: true, lagEvents: 0, lagSeconds: 0 });
    let live = first;
    const [, projector] = readSideChecks({ readModels: { activeId: async () => 'a' }, projector: { live: () => live }, maxLag, statusCacheMs: 0 });
    expect(projector!.name).toBe('projector');
    await expect(projector!.check()).rejects.toThrow(/behind/);
    live = second;
    await expect(projector!.check()).resolves.toBeUndefined();
  });
});

describe('/readyz with a lagging projector', () => {
  it('is 503 naming the projector while it is too far behind, 200 once it catches up', async () => {
    const p = fakeProjector({ caughtUp: true, lagEvents: 0, lagSeconds: 0 });
    const app = express();
    app.use(createOpsRouter({ registry: new Registry(), logger: pino({ level: 'silent' }), checks: readSideChecks({ readModels: { activeId: async () => 'a' }, projector: p, maxLag, statusCacheMs: 0 }) }));
    const server = createServer(app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
    try {
      expect((await fetch(url)).status).toBe(200);
      p.state.lagSeconds = 45;
      const behind = await fetch(url);
      expect(behind.status).toBe(503);
      const body = (await behind.json()) as { checks: Array<{ name: string; ok: boolean; error?: string }> };
      expect(body.checks.find((c) => c.name === 'projector')).toEqual({ name: 'projector', ok: false, error: expect.stringContaining('behind') });
      p.state.lagSeconds = 1;
      expect((await fetch(url)).status).toBe(200);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});
