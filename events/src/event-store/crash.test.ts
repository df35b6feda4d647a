import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl } from '../test-support/services';
import { openEventStore } from './open';

const pgUrl = testPostgresUrl();
const pgReachable = await requireService('PostgreSQL crash test', pgUrl, 5432);
const writerScript = resolve(import.meta.dirname, '../test-support/crash-writer.ts');

/**
 * Runs crash-writer.ts against `url`, SIGKILLs it once `killAfter` appends were acknowledged,
 * and returns the acknowledged appends (complete lines only).
 */
async function writeThenKill(url: string, killAfter: number): Promise<{ streamId: string; revision: number; id: string }[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', writerScript, url, '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((done) => child.on('exit', (code, signal) => done(signal ?? code)));
  await new Promise<void>((done, fail) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.split('\n').length - 2 >= killAfter) {
        child.kill('SIGKILL');
        done();
      }
    });
    void exited.then((how) => fail(new Error(`crash writer exited early (${String(how)}): ${err}`)));
  });
  expect(await exited).toBe('SIGKILL');
  // Drain what the pipe still held; a torn last line was never acknowledged in full.
  const lines = out.split('\n').slice(0, -1).filter((l) => l !== 'ready');
  return lines.map((line) => {
    const [streamId, revision, id] = line.split(' ');
    return { streamId: streamId!, revision: Number(revision), id: id! };
  });
}

async function expectAllPresent(url: string, acked: { streamId: string; revision: number; id: string }[]) {
  const store = await openEventStore(url);
  try {
    for (const streamId of new Set(acked.map((a) => a.streamId))) {
      const stored = await store.readStream(streamId);
      // Dense revisions: nothing torn in the middle of a stream.
      expect(stored.map((e) => e.revision)).toEqual(stored.map((_, i) => i));
      const byRevision = new Map(stored.map((e) => [e.revision, e.id]));
      for (const a of acked.filter((x) => x.streamId === streamId)) expect(byRevision.get(a.revision)).toBe(a.id);
      // The store accepts the next append where the stream really ends.
      await store.append(streamId, [{ id: randomUUID(), type: 'AfterCrash', data: {}, metadata: {} }], stored.length - 1);
    }
  } finally {
    await store.close();
  }
}

describe('crash: every acknowledged append survives kill -9 of the writer', () => {
  it('PGlite (directory)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pass-events-crash-'));
    try {
      const acked = await writeThenKill(`pglite:${dir}`, 300);
      expect(acked.length).toBeGreaterThanOrEqual(300);
      await expectAllPresent(`pglite:${dir}`, acked);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it.skipIf(!pgReachable)('PostgreSQL', async () => {
    const schema = `es_crash_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;
    try {
      const acked = await writeThenKill(url, 300);
      expect(acked.length).toBeGreaterThanOrEqual(300);
      await expectAllPresent(url, acked);
    } finally {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }, 90_000);
});
