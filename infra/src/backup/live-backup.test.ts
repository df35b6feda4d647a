import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@pass/events';
import { openEventStore } from '@pass/events/store';
import { settledReadSide } from '../test-support/faults/checks';
import { Load, missingAcks, readEverything, type Ack } from '../test-support/faults/load';
import { metricValue } from '../test-support/metrics';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';
import { backupAuthorization } from './endpoint';

/**
 * `npm run backup` against a real standalone serving a steady load of commands, then
 * `npm run restore` into a fresh DATA_DIR and `npm start` on it: every command acknowledged
 * before the backup began is there, the events are the original's in the same order, the
 * uploads they name are served, and a site restored from a backup of the settled site reads
 * exactly as the original does.
 */
const root = mkdtempSync(join(tmpdir(), 'pass-live-backup-'));
const repo = resolve(import.meta.dirname, '../../..');
const cli = join(repo, 'infra/src/backup/cli.ts');
const running: SpawnedService[] = [];
const noWeb = join(root, 'no-web-build');
afterAll(async () => {
  for (const p of running) await p.stop('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

async function site(dataDir: string): Promise<SpawnedService> {
  const p = await spawnStandalone({ DATA_DIR: dataDir, WEB_DIST_DIR: noWeb });
  running.push(p);
  return p;
}

/** The CLI as `npm run backup|restore -- <file>` runs it, with the site's DATA_DIR and PORT. */
async function run(command: 'backup' | 'restore', file: string, dataDir: string, port = '1'): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', cli, command, file], {
    cwd: repo,
    env: { ...process.env, DATA_DIR: dataDir, PORT: port, HOST: '127.0.0.1', NODE_ENV: 'test' },
  });
  return stdout;
}

async function storeEvents(dataDir: string): Promise<RecordedEvent[]> {
  const store = await openEventStore(`pglite:${join(dataDir, 'events')}`);
  try {
    return await readEverything(store);
  } finally {
    await store.close();
  }
}

/** The images the site shows (withdrawn ones, replaced before the backup, are rightly gone). */
const uploadUrls = (reads: unknown) => [...new Set(JSON.stringify(reads).match(/\/uploads\/[\w./-]+/g) ?? [])];
const essence = (e: RecordedEvent) => ({ id: e.id, streamId: e.streamId, revision: e.revision, type: e.type, data: e.data, metadata: e.metadata });

describe('backup of a live standalone, restored and started', () => {
  it('keeps every command acknowledged before the backup, the uploads, and the site as it reads', { timeout: 240_000 }, async () => {
    const originalDir = join(root, 'original');
    const original = await site(originalDir);
    const port = new URL(original.url).port;
    // Nobody but the operator (who holds the site's secret) can read the events out.
    expect((await fetch(`${original.url}/ops/backup/events`)).status).toBe(403);
    const forged = await fetch(`${original.url}/ops/backup/events`, { headers: { authorization: backupAuthorization('not the site secret, but long enough') } });
    expect(forged.status).toBe(403);
    const load = new Load({ origin: () => original.url, clients: 6, claimEvery: 3, stepMs: 200 });
    await load.start();
    const ackedBefore: Ack[] = [];
    try {
      await load.untilAcked(60);
      ackedBefore.push(...load.acks);
      const printed = await run('backup', join(root, 'busy.bak'), originalDir, port);
      expect(printed).toMatch(/through the running site/);
      // The site kept serving while it was copied.
      await load.untilAcked(10);
    } finally {
      await load.stop();
    }
    expect(ackedBefore.some((a) => a.command === 'claim')).toBe(true);
    const metrics = await (await fetch(`${original.url}/metrics`)).text();
    expect(metricValue(metrics, 'pass_backup_last_success_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(metricValue(metrics, 'pass_data_dir_free_bytes')).toBeGreaterThan(0);

    // The settled site, backed up again while it serves nothing, is the reference for reads.
    const live = await settledReadSide(original.url);
    await run('backup', join(root, 'settled.bak'), originalDir, port);
    expect(await original.stop('SIGTERM')).toBe(0);
    const originalEvents = await storeEvents(originalDir);

    const busyDir = join(root, 'restored-busy');
    expect(await run('restore', join(root, 'busy.bak'), busyDir)).toMatch(/events/);
    const restored = await site(busyDir);
    const restoredReads = await settledReadSide(restored.url);
    expect(restoredReads['/api/main-data']).toBeTruthy();
    const restoredEvents = await storeEventsAfterStop(restored, busyDir);
    expect(missingAcks(ackedBefore, restoredEvents).missing).toEqual([]);
    expect(restoredEvents.map(essence)).toEqual(originalEvents.slice(0, restoredEvents.length).map(essence));
    expect(uploadUrls(restoredReads).length).toBeGreaterThan(0);

    const again = await site(busyDir);
    for (const url of uploadUrls(restoredReads)) {
      const answer = await fetch(again.url + url);
      expect(answer.status, url).toBe(200);
      expect(Buffer.from(await answer.arrayBuffer()).length).toBeGreaterThan(0);
    }
    expect(await again.stop('SIGTERM')).toBe(0);

    // A truncated archive: one line, exit status 1, no DATA_DIR left behind.
    const cut = join(root, 'cut.bak');
    writeFileSync(cut, readFileSync(join(root, 'busy.bak')).subarray(0, 5_000));
    const refused = await run('restore', cut, join(root, 'from-cut')).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^restore: the archive is truncated/)]);
    expect(existsSync(join(root, 'from-cut'))).toBe(false);

    const settledDir = join(root, 'restored-settled');
    await run('restore', join(root, 'settled.bak'), settledDir);
    const copy = await site(settledDir);
    expect(await settledReadSide(copy.url)).toEqual(live);
    expect(await copy.stop('SIGTERM')).toBe(0);
  });
});

async function storeEventsAfterStop(p: SpawnedService, dataDir: string): Promise<RecordedEvent[]> {
  expect(await p.stop('SIGTERM')).toBe(0);
  return storeEvents(dataDir);
}
