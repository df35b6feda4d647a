import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnStandalone, standaloneEntry } from '../test-support/spawn-process';

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((done) => setTimeout(done, 100));
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'standalone-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('standalone process (what npm start runs)', () => {
  it('serves /healthz naming the embedded event store, and stops cleanly on SIGTERM', async () => {
    const app = await spawnStandalone({ DATA_DIR: dataDir });
    try {
      const res = await fetch(`${app.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok', mode: 'standalone', eventStore: 'pglite' });
      const unknown = await fetch(`${app.url}/api/no-such-route`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: 'Not found' });
    } finally {
      expect(await app.stop('SIGTERM')).toBe(0);
    }
  });

  it('a restart restores the read models from the snapshot written at shutdown, not by replaying every event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'standalone-snapshot-'));
    try {
      const first = await spawnStandalone({ DATA_DIR: dir });
      const figures = await (await fetch(`${first.url}/api/main-data`)).json();
      expect(await first.stop('SIGTERM')).toBe(0);
      expect(existsSync(join(dir, 'read-models.snapshot'))).toBe(true);

      const second = await spawnStandalone({ DATA_DIR: dir });
      try {
        await waitFor(async () => (await fetch(`${second.url}/readyz`)).status === 200);
        expect(second.logs.some((line) => line.includes('read models restored from snapshot'))).toBe(true);
        expect(await (await fetch(`${second.url}/api/main-data`)).json()).toEqual(figures);
      } finally {
        expect(await second.stop('SIGTERM')).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a bad setting with one line naming the variable', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', standaloneEntry], {
      env: { ...process.env, PORT: 'abc', DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Invalid setting PORT: .*\(got "abc"\)$/);
  });

  it('names the variable when the event store URL is malformed', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', standaloneEntry], {
      env: { ...process.env, EVENT_STORE_URL: 'mongodb://x', DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(/^Invalid setting EVENT_STORE_URL: expected pglite:<dir>/);
  });
});
