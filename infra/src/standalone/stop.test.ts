import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Browser } from '../test-support/client';
import { freshAddress } from '../test-support/hostile/client';
import { silentLongPolling, silentWebSocket, type SilentClient } from '@pass/query-api/test-support';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/**
 * A stop of the real standalone process with clients attached that never read: WebSockets that
 * upgraded and sent `40`, and long-polling guests (one holding a poll it never reads, one that
 * stopped polling with answers queued for it). SIGTERM and SIGINT must write the read-model
 * snapshot, cut those clients off and exit 0 within 5 s. The stops run in turn on one DATA_DIR,
 * each after a new member joined, so every stop has something new to write.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'standalone-stop-'));
const snapshotFile = join(dataDir, 'read-models.snapshot');
const started: SpawnedService[] = [];
afterAll(async () => {
  for (const app of started) await app.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const mtimeOf = (file: string): number | undefined => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

const READS = Array.from({ length: 200 }, () => '42["getChatMessages"]');

const silentClients = {
  websocket: async (url: string): Promise<SilentClient[]> => {
    const clients = [await silentWebSocket(url), await silentWebSocket(url, { address: freshAddress() })];
    // One of them has asked for more than its connection will take before it is read.
    await clients[1]!.send(READS);
    return clients;
  },
  'long-polling': async (url: string): Promise<SilentClient[]> => [
    await silentLongPolling(url),
    await silentLongPolling(url, { address: freshAddress(), reads: READS.slice(0, 20), holdPoll: false }),
    await silentLongPolling(url, { address: freshAddress(), reads: READS.slice(0, 20) }),
  ],
};

let members = 0;

/** Starts, lets a member join and chat (new state to snapshot), attaches the silent clients, then sends `signal`. */
async function stopWith(signal: NodeJS.Signals, kind: keyof typeof silentClients): Promise<{ code: number | null | 'hung'; ms: number; snapshotBefore?: number; snapshotAfter?: number; logs: string[] }> {
  const app = await spawnStandalone({ DATA_DIR: dataDir });
  started.push(app);
  const url = app.url.replace('localhost', '127.0.0.1');
  const member = new Browser(url);
  const joined = await member.request('POST', '/api/register-user', { email: `stop${++members}@example.com`, password: 'pass1' });
  expect(joined.status).toBe(201);
  expect((await member.request('POST', '/api/chat-messages', { message: `a line before the stop ${'x'.repeat(400)}` })).status).toBe(201);
  await expect.poll(async () => (await member.request('GET', '/api/me')).status, { timeout: 5_000, interval: 50 }).toBe(200);
  const clients = await silentClients[kind](url);
  // Give the server a moment to queue what the silent clients asked for.
  await new Promise((done) => setTimeout(done, 500));
  const snapshotBefore = mtimeOf(snapshotFile);
  const sentAt = performance.now();
  const exited = app.stop(signal);
  const code = await Promise.race([exited, new Promise<'hung'>((done) => setTimeout(() => done('hung'), 25_000))]);
  const ms = performance.now() - sentAt;
  if (code === 'hung') await app.stop('SIGKILL');
  for (const client of clients) client.destroy();
  const logs = app.logs
    .map((line) => {
      try {
        return JSON.parse(line) as { msg?: string; reason?: string; signal?: string };
      } catch {
        return {};
      }
    })
    .filter((l) => /shutting down|snapshot|stopped|too long|shutdown failed/.test(l.msg ?? ''))
    .map((l) => [l.msg, l.signal, l.reason].filter(Boolean).join(' '));
  return { code, ms, ...(snapshotBefore === undefined ? {} : { snapshotBefore }), ...(mtimeOf(snapshotFile) === undefined ? {} : { snapshotAfter: mtimeOf(snapshotFile)! }), logs };
}

describe('the standalone process stops within 5 s with clients that never read', { timeout: 90_000 }, () => {
  const cases: Array<[NodeJS.Signals, keyof typeof silentClients]> = [
    ['SIGTERM', 'websocket'],
    ['SIGINT', 'websocket'],
    ['SIGTERM', 'long-polling'],
    ['SIGINT', 'long-polling'],
  ];
  const times: number[] = [];

  it.each(cases)('%s with silent %s clients: snapshot written, exit 0 within 5 s', async (signal, kind) => {
    const stop = await stopWith(signal, kind);
    expect({ code: stop.code, logs: stop.logs }).toMatchObject({ code: 0 });
    expect(stop.ms, stop.logs.join('\n')).toBeLessThan(5_000);
    expect(stop.snapshotAfter, stop.logs.join('\n')).toBeDefined();
    if (stop.snapshotBefore !== undefined) expect(stop.snapshotAfter!).toBeGreaterThan(stop.snapshotBefore);
    expect(stop.logs.filter((l) => l.startsWith('read-model snapshot written')), stop.logs.join('\n')).toEqual(['read-model snapshot written shutdown']);
    times.push(stop.ms);
  });

  it('every stop of the four took under 5 s', () => {
    expect(times).toHaveLength(cases.length);
    expect(Math.max(...times)).toBeLessThan(5_000);
  });
});
