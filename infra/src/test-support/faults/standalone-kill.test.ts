import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEventStore } from '@pass/events/store';
import { spawnStandalone, type SpawnedService } from '../spawn-process';
import { Browser, nextEvent } from '../client';
import { halfDoneClaims, readSide, reconcileAsIfLater, roamingSocket, settledReadSide } from './checks';
import { doubledAcks, Load, missingAcks, readEverything } from './load';
import { faultTally } from './tally';

/**
 * SIGKILL of the standalone process (command-api + projector + query-api on PGlite) in the
 * middle of a stream of commands from concurrent clients, then a restart on the same DATA_DIR
 * while the clients go on. Afterwards: every acknowledged command's events are in the store
 * (none twice), the live read models equal a clean rebuild (a fresh process projecting the same
 * store from 0), and after the reconciler no pass reservation is left half-done.
 */
const tally = faultTally('SIGKILL standalone mid-load (PGlite)');
const dataDir = mkdtempSync(join(tmpdir(), 'pass-fault-standalone-'));
const running: SpawnedService[] = [];
afterAll(async () => {
  for (const p of running) await p.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the process; a restart listens on the same port, as behind a fixed address. */
async function start(port?: string): Promise<SpawnedService> {
  const p = await spawnStandalone({ DATA_DIR: dataDir, ...(port ? { PORT: port } : {}) });
  running.push(p);
  return p;
}

describe('standalone: kill -9 mid-load, restart on the same data', () => {
  it('keeps every acknowledged command, and the read models equal a clean rebuild', { timeout: 150_000 }, async () => {
    let current = await start();
    const port = new URL(current.url).port;
    const watcher = roamingSocket([current.url]);
    const load = new Load({ origin: () => current.url, clients: 12, claimEvery: 6 });
    await load.start();
    try {
      await load.untilAcked(80);
      current.child.kill('SIGKILL');
      await current.stop();
      const ackedAtKill = load.acks.length;
      // The clients keep trying while the process is down, then go on against the new one.
      current = await start(port);
      await load.untilAcked(40);
      // The socket client reconnected by itself and hears live events again.
      const member = new Browser(current.url);
      expect((await member.request('POST', '/api/register-user', { email: 'socket@example.com', password: 'pass1' })).status).toBeLessThan(300);
      await expect.poll(() => watcher.current().connected, { timeout: 10_000 }).toBe(true);
      const heard = nextEvent(watcher.current(), 'chatMessage', (m) => m.message === 'after the restart', 15_000);
      expect((await member.request('POST', '/api/chat-messages', { message: 'after the restart' })).status).toBe(201);
      await heard;
      expect(watcher.reconnects()).toBeGreaterThanOrEqual(1);
      watcher.close();
      tally.note('acknowledged before the kill', ackedAtKill);
    } finally {
      await load.stop();
    }
    tally.note('requests without an answer', load.refused.get(0) ?? 0);
    const live = await settledReadSide(current.url);
    expect(await current.stop('SIGTERM')).toBe(0);

    // A clean rebuild: a fresh process projects the same store from position 0.
    const fresh = await start();
    expect(await readSide(fresh.url)).toEqual(live);
    expect(await fresh.stop('SIGTERM')).toBe(0);

    const store = await openEventStore(`pglite:${join(dataDir, 'events')}`);
    try {
      const events = await readEverything(store);
      const { missing, checked } = missingAcks(load.acks, events);
      tally.lost(missing.length);
      tally.note('acknowledged commands', checked);
      tally.note('events', events.length);
      expect(missing).toEqual([]);
      expect(doubledAcks(load.acks, events)).toEqual([]);
      expect(load.acks.filter((a) => a.command === 'claim').length).toBeGreaterThan(0);

      // The reconciler, a minute later (what the next start or its 30 s timer does).
      await reconcileAsIfLater(store);
      const half = halfDoneClaims(await readEverything(store));
      expect(half.pending).toEqual([]);
      expect(half.claimedButReleased).toEqual([]);
      tally.note('reservations', half.reservations);
    } finally {
      await store.close();
    }
  });
});
