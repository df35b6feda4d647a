import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { spawnStandalone, type SpawnedService } from '../spawn-process';
import type { LiveClient } from '../client';
import { Actor, freshAddress } from './client';
import { silentWebSocket, type SilentClient } from '@pass/query-api/test-support';

/**
 * Floods of socket work from guests against the real standalone process: reads asked faster
 * than they are read back, and more sockets than a visitor has tabs. The server's resident
 * memory (its /proc status) must stay bounded and come back, /healthz must keep answering, and
 * the public connected-users figure must count visitors, not sockets.
 */
const MB = 1024 * 1024;
const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The process's resident set, from /proc/<pid>/status (VmRSS, in kB). */
function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) * 1024;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('socket floods against the standalone process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-socket-flood-'));
  let app: SpawnedService;
  let url: string;

  beforeAll(async () => {
    app = await spawnStandalone({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory' });
    url = app.url.replace('localhost', '127.0.0.1');
    // A full chat panel of long messages: each getChatMessages answer is tens of kilobytes.
    for (let m = 0; m < 10; m++) {
      const member = new Actor(url);
      const joined = await member.send('POST', '/api/register-user', { json: { email: `flood${m}@example.com`, password: 'pass1' } });
      expect(joined.status).toBe(201);
      for (let i = 0; i < 5; i++) {
        const sent = await member.send('POST', '/api/chat-messages', { json: { message: `${m}.${i} ${'long message '.repeat(38)}` } });
        expect(sent.status).toBe(201);
      }
    }
  }, 90_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'four silent guest sockets asking 5,000 chat histories each: memory rises by under 50 MB and comes back within 30 s, /healthz answers throughout',
    { timeout: 120_000 },
    async () => {
      const pid = app.child.pid!;
      const history = await fetch(`${url}/api/chat-messages`).then((r) => r.text());
      expect(history.length).toBeGreaterThan(25_000);
      const baseline: number[] = [];
      for (let i = 0; i < 5; i++) {
        baseline.push(residentBytes(pid));
        await wait(100);
      }
      const before = median(baseline);

      // The resident set every 100 ms, and /healthz asked in a loop (each answer within 3 s), until the end.
      const rss: number[] = [];
      const rssTimer = setInterval(() => rss.push(residentBytes(pid)), 100);
      const health: Array<{ status: number; ms: number }> = [];
      let probing = true;
      const prober = (async () => {
        while (probing) {
          const started = performance.now();
          const status = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3_000) }).then(
            (r) => r.status,
            () => 0,
          );
          health.push({ status, ms: Math.round(performance.now() - started) });
          await wait(100);
        }
      })();

      const clients: SilentClient[] = [];
      for (let c = 0; c < 4; c++) clients.push(await silentWebSocket(url, { address: freshAddress() }));
      const frames = Array.from({ length: 5_000 }, () => '42["getChatMessages"]');
      await Promise.all(clients.map((client) => client.send(frames)));
      // The server works through what it was sent (or cuts the senders off) meanwhile.
      await wait(5_000);
      const peak = Math.max(...rss);

      for (const client of clients) client.destroy();
      const closedAt = performance.now();
      // V8 gives pages back only after its memory reducer's next full collection, which a busy
      // machine (CI runs many suites beside this one) can put off for well over 10 s.
      let backAfterMs: number | undefined;
      while (performance.now() - closedAt < 30_000) {
        if (residentBytes(pid) - before < 20 * MB) {
          backAfterMs = performance.now() - closedAt;
          break;
        }
        await wait(250);
      }
      clearInterval(rssTimer);
      probing = false;
      await prober;

      const slowest = Math.max(...health.map((h) => h.ms));
      const report = { baselineMb: Math.round(before / MB), peakMb: Math.round(peak / MB), backAfterMs, healthProbes: health.length, slowestHealthMs: slowest };
      expect(peak - before, JSON.stringify(report)).toBeLessThan(50 * MB);
      expect(backAfterMs, JSON.stringify(report)).toBeDefined();
      expect(health.length).toBeGreaterThan(10);
      expect(health.filter((h) => h.status !== 200), JSON.stringify(report)).toEqual([]);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    },
  );

  it('one client opening 150 sockets gets at most the cap, and the connected-users figure counts it once', { timeout: 60_000 }, async () => {
    const observer = connect(url, { transports: ['websocket'], reconnection: false, extraHeaders: { 'x-forwarded-for': freshAddress() } });
    const figures: number[] = [];
    observer.on('connectedUsers', (n) => figures.push(n));
    await new Promise<void>((done, fail) => {
      observer.once('connect', () => done());
      observer.once('connect_error', fail);
    });
    const address = freshAddress();
    const sockets: LiveClient[] = [];
    const outcomes = await Promise.all(
      Array.from(
        { length: 150 },
        () =>
          new Promise<'connected' | 'refused'>((done) => {
            const socket: LiveClient = connect(url, { transports: ['websocket'], reconnection: false, timeout: 10_000, extraHeaders: { 'x-forwarded-for': address } });
            sockets.push(socket);
            socket.once('connect', () => done('connected'));
            socket.once('connect_error', () => done('refused'));
            // A socket let in and then closed by the server (over the cap) counts as refused.
            socket.once('disconnect', () => done('refused'));
          }),
      ),
    );
    // The count is announced after a short debounce.
    await wait(1_500);
    const stillOpen = sockets.filter((s) => s.connected).length;
    try {
      expect(outcomes.filter((o) => o === 'connected').length).toBeGreaterThan(0);
      expect(stillOpen).toBeLessThanOrEqual(10);
      expect(Math.max(...figures)).toBeLessThan(151);
      // The observer and the one client: two visitors.
      expect(figures.at(-1)).toBe(2);
    } finally {
      for (const s of sockets) s.disconnect();
      observer.disconnect();
    }
  });
});
