import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { Browser } from '../test-support/client';

/**
 * `npm start` (scripts/start.mjs → the standalone process) stopped the ways terminals and
 * supervisors stop it: a signal to the launcher's pid, or to its whole process group (Ctrl-C,
 * `kill -TERM -<pgid>`: the launcher and the server both get it), and two in a row. Each stop
 * must exit 0 with the shutdown snapshot written exactly once, and the next start on the same
 * DATA_DIR must restore the read models from it. The cases run in order on one DATA_DIR: each
 * start checks the snapshot the previous stop wrote.
 */
const root = resolve(import.meta.dirname, '../../..');
const work = mkdtempSync(join(tmpdir(), 'start-signals-'));
const dataDir = join(work, 'data');
// A tiny "built" web app, so start.mjs does not build the real one.
const webDist = join(work, 'web-dist');
mkdirSync(webDist);
writeFileSync(join(webDist, 'index.html'), '<!doctype html><title>test</title>');

interface Started {
  child: ChildProcess;
  url: string;
  logs: Array<Record<string, unknown>>;
  /** The launcher's own lines (`[start] …`). */
  said: string[];
  exited: Promise<number | null>;
}

const launched: ChildProcess[] = [];
afterAll(() => {
  for (const child of launched) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
});

/** `node scripts/start.mjs` in its own process group; resolves once /readyz answers 200. */
async function start(): Promise<Started> {
  const child = spawn(process.execPath, [join(root, 'scripts/start.mjs')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATA_DIR: dataDir, WEB_DIST_DIR: webDist, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'test' },
  });
  launched.push(child);
  const logs: Array<Record<string, unknown>> = [];
  const said: string[] = [];
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "listening" line in 150 s:\n${stderr.join('')}`)), 150_000);
    void exited.then((code) => fail(new Error(`exited with ${code} before listening:\n${logs.slice(-10).map((l) => JSON.stringify(l)).join('\n')}\n${stderr.join('')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        said.push(line);
        return;
      }
      logs.push(entry);
      if (entry.msg === 'listening' && typeof entry.url === 'string') {
        clearTimeout(timer);
        ready(entry.url);
      }
    });
  });
  await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 20_000, interval: 50 }).toBe(200);
  return { child, url, logs, said, exited };
}

/** Each member's cookies (their session), to ask /api/me of a later start. */
const members: Array<Map<string, string>> = [];
const meOn = async (url: string, cookies: Map<string, string>) => {
  const browser = new Browser(url);
  for (const [k, v] of cookies) browser.cookies.set(k, v);
  return (await browser.request('GET', '/api/me')).status;
};
/** Whether a stop has written a snapshot for the next start to restore. */
let snapshotWritten = false;

/** SIGKILL for the whole group (a failed check must not leave the server holding DATA_DIR). */
async function kill(app: Started): Promise<void> {
  try {
    process.kill(-app.child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  await app.exited;
}

/** Starts, checks the previous stop's snapshot was restored, adds a member, stops with `send`. */
async function stopsCleanly(send: (pid: number) => void): Promise<void> {
  const app = await start();
  try {
    await beforeTheStop(app);
  } catch (error) {
    await kill(app);
    throw error;
  }
  send(app.child.pid!);
  const code = await Promise.race([app.exited, new Promise((done) => setTimeout(() => done('still running after 25 s'), 25_000))]);
  if (typeof code === 'string') await kill(app);
  const summary = app.logs
    .filter((l) => ['shutting down', 'already stopping', 'read-model snapshot written', 'stopped'].includes(l.msg as string) || (l.level as number) >= 40)
    .map((l) => `${l.msg as string}${l.signal ? ` (${l.signal as string})` : ''}`);
  expect({ code, summary }).toMatchObject({ code: 0 });
  const snapshots = app.logs.filter((l) => l.msg === 'read-model snapshot written');
  expect(snapshots.map((l) => l.reason), summary.join(', ')).toEqual(['shutdown']);
  expect(app.logs.filter((l) => l.msg === 'shutting down'), summary.join(', ')).toHaveLength(1);
  expect(app.logs.filter((l) => l.msg === 'stopped'), summary.join(', ')).toHaveLength(1);
  expect(existsSync(join(dataDir, 'read-models.snapshot'))).toBe(true);
  expect(existsSync(join(dataDir, 'read-models.snapshot.tmp'))).toBe(false);
  snapshotWritten = true;
}

/** The previous stop's snapshot was restored; one more member joins. */
async function beforeTheStop(app: Started): Promise<void> {
  if (snapshotWritten) {
    // The snapshot written by the previous stop was loaded, with every member so far.
    const restored = app.logs.filter((l) => l.msg === 'read models restored from snapshot');
    expect(restored).toHaveLength(1);
    expect(restored[0]!.users).toBe(members.length);
    expect(app.logs.find((l) => l.msg === 'read-model snapshot not used; rebuilding from the events')).toBeUndefined();
    // The projector went on from the snapshot's checkpoint, not from the first event.
    expect(app.logs.find((l) => l.msg === 'projector subscribing')?.from).not.toBe('start');
    for (const cookies of members) expect(await meOn(app.url, cookies)).toBe(200);
  }
  const member = new Browser(app.url);
  const joined = await member.request('POST', '/api/register-user', { email: `signals${members.length}@example.com`, password: 'pass1' });
  expect([200, 201]).toContain(joined.status);
  members.push(member.cookies);
  // The registration reached the read models before the stop.
  await expect.poll(async () => (await member.request('GET', '/api/me')).status, { timeout: 5_000, interval: 50 }).toBe(200);
}

describe('npm start stops cleanly on signals, writing the shutdown snapshot once', { timeout: 240_000 }, () => {
  it('SIGINT to the launcher', () => stopsCleanly((pid) => process.kill(pid, 'SIGINT')));
  it('SIGTERM to the launcher', () => stopsCleanly((pid) => process.kill(pid, 'SIGTERM')));
  it('SIGTERM to the process group (kill -TERM -<pgid>, what supervisors do)', () => stopsCleanly((pid) => process.kill(-pid, 'SIGTERM')));
  it('SIGINT to the process group (Ctrl-C in a terminal)', () => stopsCleanly((pid) => process.kill(-pid, 'SIGINT')));
  it('two SIGTERMs to the process group in a row', () =>
    stopsCleanly((pid) => {
      process.kill(-pid, 'SIGTERM');
      process.kill(-pid, 'SIGTERM');
    }));
  it('the last snapshot restores every member', async () => {
    const app = await start();
    try {
      const restored = app.logs.filter((l) => l.msg === 'read models restored from snapshot');
      expect(restored.map((l) => l.users)).toEqual([members.length]);
      // The launcher says where the site is, in plain words.
      await expect.poll(() => app.said, { timeout: 5_000 }).toContain(`[start] Serving on ${app.url}`);
      for (const cookies of members) expect(await meOn(app.url, cookies)).toBe(200);
    } finally {
      await kill(app);
    }
  });
});
