/**
 * The floor under a read's latency on this machine: a bare node:http server, in a process of its
 * own, that answers every GET with a fixed small JSON body after one Redis GET, which is the
 * least any query-api read does (a country top 5 is one GET of a prepared body). Timed by the
 * same client as the reads, it shows how much of their tail is the platform's (loopback, the
 * scheduler, waking idle cores) rather than the product's.
 *
 *   startFloorServer(redisUrl) → { url, stop }
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

export interface FloorServer {
  url: string;
  stop(): Promise<void>;
}

export function startFloorServer(redisUrl: string): Promise<FloorServer> {
  const child = fork(fileURLToPath(import.meta.url), [redisUrl], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((ready, fail) => {
    child.once('message', (port: number) =>
      ready({
        url: `http://127.0.0.1:${port}`,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      }),
    );
    child.once('error', fail);
    void exited.then(() => fail(new Error('the floor server exited before listening')));
  });
}

// The child: listens on a free port and reports it.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const redis = new Redis(process.argv[2]!, { maxRetriesPerRequest: 2 });
  const body = Buffer.from(JSON.stringify({ countries: ['Peru', 'Japan', 'Kenya', 'Canada', 'India'].map((country, i) => ({ country, passes: 1_000 - i })) }));
  const server = createServer((_req, res) => {
    redis.get('bench:floor:absent').then(
      () => {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(body);
      },
      () => {
        res.statusCode = 500;
        res.end();
      },
    );
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!(typeof address === 'object' && address ? address.port : 0);
  });
  process.once('SIGTERM', () => {
    server.close();
    redis.disconnect();
  });
}
