import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl } from '@pass/events/test-support';
import { TcpProxy } from '../test-support/faults/tcp-proxy';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/**
 * /readyz over real HTTP on the standalone process, its PostgreSQL event store behind a TCP
 * proxy that the test cuts: 503 naming the `event-store` check while the store does not answer
 * (refused connections, then a black hole), 200 again by itself once it does.
 */
const pgUp = await requireService('infra standalone: readiness (PostgreSQL)', testPostgresUrl(), 5432);

interface Readiness {
  status: string;
  checks: Array<{ name: string; ok: boolean; error?: string }>;
}

async function readyz(url: string): Promise<{ status: number; body: Readiness }> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as Readiness };
}

async function until(url: string, status: number, withinMs: number): Promise<{ status: number; body: Readiness }> {
  const deadline = Date.now() + withinMs;
  let last = await readyz(url);
  while (last.status !== status && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    last = await readyz(url);
  }
  return last;
}

describe.skipIf(!pgUp)('standalone /readyz and the event store', () => {
  const target = new URL(testPostgresUrl());
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-readiness-'));
  let app: SpawnedService;

  beforeAll(async () => {
    await proxy.start();
    const url = new URL(testPostgresUrl());
    url.host = `127.0.0.1:${proxy.port}`;
    url.searchParams.set('schema', `readiness_${randomUUID().replaceAll('-', '').slice(0, 12)}`);
    app = await spawnStandalone({ DATA_DIR: dataDir, WEB_DIST_DIR: join(dataDir, 'no-web-build'), EVENT_STORE_URL: url.toString() });
  }, 60_000);
  afterAll(async () => {
    proxy.restore();
    await app?.stop('SIGKILL');
    await proxy.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is 503 naming the event store while it does not answer, and 200 again by itself', { timeout: 90_000 }, async () => {
    expect((await until(app.url, 200, 15_000)).status).toBe(200);

    for (const [label, cut] of [
      ['reset', () => proxy.reset()],
      ['black hole', () => proxy.blackhole()],
    ] as const) {
      cut();
      const started = Date.now();
      const down = await until(app.url, 503, 15_000);
      expect(down.status, label).toBe(503);
      expect(Date.now() - started, label).toBeLessThan(15_000);
      expect(down.body.status).toBe('not ready');
      expect(down.body.checks.find((c) => c.name === 'event-store'), label).toMatchObject({ ok: false, error: expect.any(String) });
      // /healthz (liveness) does not touch the store.
      expect((await fetch(`${app.url}/healthz`)).status, label).toBe(200);

      proxy.restore();
      const up = await until(app.url, 200, 30_000);
      expect(up.status, label).toBe(200);
      expect(up.body.checks.every((c) => c.ok), label).toBe(true);
    }
  });
});
