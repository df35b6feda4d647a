/**
 * Sequential GETs timed from a small process of their own: the bench process that seeded a
 * million members carries a large heap whose collections would pause the client and be counted
 * as the server's latency.
 *
 * The client process warms itself up first (CLIENT_WARM_UP untimed GETs of `warmUpPath`): a fresh
 * process's HTTP client is still being compiled for its first few thousand requests, and timed
 * then it would add to every GET, most of all to the 99th percentile.
 *
 *   measureSequentialGets(baseUrl, rows, warmUpPath) → for each row, the milliseconds of each GET after warm-up
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

export interface GetRow {
  name: string;
  /** The paths to GET, in order; the first `warmUp` are not timed. */
  paths: string[];
  warmUp: number;
}

type Request = { baseUrl: string; rows: GetRow[]; warmUpPath: string };

/** Untimed GETs that warm the client process before any row (see above). */
export const CLIENT_WARM_UP = 5_000;
type Reply = { ok: true; times: number[][] } | { ok: false; error: string };

async function timeRows({ baseUrl, rows, warmUpPath }: Request): Promise<number[][]> {
  const pool = new Pool(baseUrl, { connections: 1 });
  const get = async (path: string) => {
    const res = await pool.request({ method: 'GET', path, headers: { accept: 'application/json' } });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 200)}`);
  };
  try {
    for (let i = 0; i < CLIENT_WARM_UP; i++) await get(warmUpPath);
    const out: number[][] = [];
    for (const row of rows) {
      const times: number[] = [];
      for (const [i, path] of row.paths.entries()) {
        const started = performance.now();
        await get(path);
        const ms = performance.now() - started;
        if (i >= row.warmUp) times.push(ms);
      }
      out.push(times);
    }
    return out;
  } finally {
    await pool.close();
  }
}

export function measureSequentialGets(baseUrl: string, rows: GetRow[], warmUpPath: string): Promise<number[][]> {
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((done, fail) => {
    child.once('message', (reply: Reply) => {
      child.disconnect();
      if (reply.ok) done(reply.times);
      else fail(new Error(reply.error));
    });
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`sequential GET client exited with ${code}`)));
    child.send({ baseUrl, rows, warmUpPath } satisfies Request);
  });
}

// The child: one request in, one reply out.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', (request: Request) => {
    timeRows(request).then(
      (times) => process.send!({ ok: true, times } satisfies Reply),
      (error: unknown) => process.send!({ ok: false, error: String((error as Error)?.stack ?? error) } satisfies Reply),
    );
  });
}
