/**
 * The floor under the product's latencies and rates on this machine: a bare node:http server, in
 * a process of its own, doing the least the product's requests do, with no framework, logging,
 * sessions or validation.
 * - GET /memory: a fixed small JSON body straight from memory: the least a query-api read does
 *   (the country top 5 and the home figures are bodies kept until the projector announces a batch).
 * - GET (any other path): one Redis GET, then the same body: the least a read that asks Redis does
 *   (a ranking page is one script call).
 * - POST (any path, with `commands`): the JSON body parsed, one Redis GET (a command's rate-limit
 *   check), one INSERT in its own commit into the raw-events table of the same shape as the event
 *   store's, then a small JSON answer: the least a command does.
 * Timed by the same clients as the product, it shows how much of a figure is the platform's
 * (loopback, the scheduler, the two shared cores) rather than the product's.
 *
 *   startFloorServer(redisUrl, { commands: { postgresUrl, table } }?) → { url, pid, stop }
 */
import { fork } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export interface FloorServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The application_name of the floor's PostgreSQL connections (told apart in pg_stat_activity). */
const FLOOR_APPLICATION_NAME = 'bench-floor';

export interface FloorOptions {
  /** POSTs insert into `table` (created by the caller: bench/distributed.ts's raw INSERT table). */
  commands?: { postgresUrl: string; table: string; poolSize?: number };
}

export function startFloorServer(redisUrl: string, options: FloorOptions = {}): Promise<FloorServer> {
  const child = fork(fileURLToPath(import.meta.url), [redisUrl, JSON.stringify(options)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((ready, fail) => {
    child.once('message', (port: number) =>
      ready({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid!,
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
  const redis = new Redis(process.argv[2]!, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
  const { commands } = JSON.parse(process.argv[3] ?? '{}') as FloorOptions;
  const pool = commands && new pg.Pool({ connectionString: commands.postgresUrl, max: commands.poolSize ?? 16, application_name: FLOOR_APPLICATION_NAME });
  const insert = commands && { name: 'floor_insert', text: `INSERT INTO ${commands.table} (event_id, stream_id, revision, type, data, metadata) VALUES ($1, $2, 0, $3, $4, $5)` };
  const meta = JSON.stringify({ correlationId: randomUUID(), actor: { type: 'user', id: randomUUID() } });
  const body = Buffer.from(JSON.stringify({ countries: ['Peru', 'Japan', 'Kenya', 'Canada', 'India'].map((country, i) => ({ country, passes: 1_000 - i })) }));
  const answer = (res: ServerResponse, status: number, bytes: Buffer) => {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(bytes);
  };
  const command = async (text: string): Promise<Buffer> => {
    const draft = JSON.parse(text || '{}') as { message?: unknown };
    await redis.get('bench:floor:absent');
    const eventId = randomUUID();
    await pool!.query({ ...insert!, values: [eventId, `floor-${eventId}`, 'ChatMessageSent', JSON.stringify({ message: String(draft.message ?? '') }), meta] });
    return Buffer.from(JSON.stringify({ message: { id: eventId, text: draft.message ?? null }, ok: true }));
  };
  const server = createServer((req, res) => {
    const fail = () => answer(res, 500, Buffer.from('{"error":"floor failed"}'));
    if (req.method === 'POST' && pool) {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => command(Buffer.concat(chunks).toString()).then((bytes) => answer(res, 201, bytes), fail));
      return;
    }
    if (req.url === '/memory') return answer(res, 200, body);
    redis.get('bench:floor:absent').then(() => answer(res, 200, body), fail);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!(typeof address === 'object' && address ? address.port : 0);
  });
  process.once('SIGTERM', () => {
    server.close();
    redis.disconnect();
    void pool?.end();
  });
}
