import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnStandalone, standaloneEntry } from '../testing/spawn-process';

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
