import { createRequire } from 'node:module';
import { createServer, request, type IncomingHttpHeaders, type RequestListener, type Server as HttpServer } from 'node:http';
import { Socket as NetSocket, type AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import express from 'express';
import { pino } from 'pino';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD, createAppShell, createFastLaneShell } from './app-shell';
import { checkFastLaneLibraries, libraryChanged, versionOf } from './fast-lane-libraries';

// When an upgrade of Express, compression, Socket.IO or engine.io changes an internal the fast
// lane (./fast-lane.ts) or the write coalescing (query-api/src/socket/coalesce.ts) reaches into,
// a test here fails and its message names the library, its version and the detail.

const COALESCING = 'the write coalescing (query-api/src/socket/coalesce.ts)';
const resolve = createRequire(import.meta.url).resolve;
const EXPRESS = `Express ${versionOf('express')}`;
const socketIoEntry = resolve('socket.io');
const ADAPTER = `socket.io-adapter ${versionOf('socket.io-adapter', socketIoEntry)}`;
const ENGINE_IO = `engine.io ${versionOf('engine.io', socketIoEntry)}`;
const WS = `ws ${versionOf('ws', createRequire(socketIoEntry).resolve('engine.io'))}`;

async function listen(server: HttpServer): Promise<number> {
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return (server.address() as AddressInfo).port;
}

describe('what the fast lane relies on of Express', () => {
  it("finds the request getters ip, query and fresh, and the setting 'etag fn', behaving as it relies on", () => {
    // Throws "Express <version> changed <detail>: the fast lane ... relies on ..." otherwise.
    checkFastLaneLibraries(createAppShell({ logger: pino({ level: 'silent' }), routers: [], serveWebApp: false }));
  });

  it("computes with 'etag fn' the very ETag res.json sends", async () => {
    const app = express();
    const body = { figures: [1, 2, 3], name: 'é' };
    app.get('/x', (_req, res) => void res.json(body));
    const server = createServer(app);
    try {
      const res = await fetch(`http://127.0.0.1:${await listen(server)}/x`);
      const etagOf = app.get('etag fn') as (body: Buffer) => string;
      expect(etagOf(Buffer.from(JSON.stringify(body))), libraryChanged(EXPRESS, "the setting 'etag fn'", "app.get('etag fn') of the JSON's bytes being the ETag res.json sends")).toBe(
        res.headers.get('etag'),
      );
    } finally {
      server.close();
    }
  });
});

describe('what the fast lane relies on of the JSON parser and compression, called outside Express', () => {
  const shell = createFastLaneShell({ logger: pino({ level: 'silent' }), routers: [] });
  let listener: RequestListener = () => undefined;
  const server = createServer((req, res) => {
    try {
      listener(req, res);
    } catch (error) {
      // A library throwing on the bare request: the answer says so, and the assertion fails.
      res.removeHeader('Content-Length');
      res.setHeader('x-thrown', String(error).slice(0, 200));
      res.end();
    }
  });
  let port: number;

  beforeAll(async () => {
    port = await listen(server);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  });

  /** What node:http sees (no Accept-Encoding unless given). */
  function send(headers: Record<string, string>, body?: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((done, fail) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/x', method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done({ headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', fail);
      req.end(body);
    });
  }

  it('parses JSON with express.json on a bare node:http request, passing its errors on typed', async () => {
    listener = (req, res) =>
      shell.parseJson(req, res, (error) => {
        const e = error as { status?: number; type?: string } | undefined;
        res.end(JSON.stringify({ body: (req as { body?: unknown }).body, status: e?.status, type: e?.type }));
      });
    const parsed = async (body: string) => {
      const seen = await send({ 'content-type': 'application/json' }, body);
      return seen.headers['x-thrown'] ? { thrown: seen.headers['x-thrown'] } : (JSON.parse(seen.body.toString()) as unknown);
    };
    const changed = libraryChanged(
      `${EXPRESS} (body-parser ${versionOf('body-parser', resolve('express'))})`,
      'express.json',
      'express.json({ limit }) being a (req, res, next) function that, on a bare node:http request, sets req.body to the parsed JSON, or calls next with the error and its `status` and `type`',
    );
    expect(await parsed('{"message":"hi"}'), changed).toEqual({ body: { message: 'hi' } });
    expect(await parsed('{"message": '), changed).toEqual({ status: 400, type: 'entity.parse.failed' });
    expect(await parsed(JSON.stringify({ message: 'x'.repeat(200_000) })), changed).toEqual({ status: 413, type: 'entity.too.large' });
  });

  it('compresses with the compression middleware on bare node:http req/res as behind Express, only marking Vary where the lane writes alone', async () => {
    listener = (req, res) => {
      const chunk = Buffer.from(JSON.stringify({ text: req.headers['x-size'] === 'large' ? 'x'.repeat(COMPRESSION_THRESHOLD) : 'x' }));
      // As the lane's answer writer: type and length set, then the body through the middleware.
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', String(chunk.length));
      shell.compression(req as never, res as never, () => res.end(chunk));
    };
    const changed = libraryChanged(
      `compression ${versionOf('compression')}`,
      'its middleware',
      'compression({ threshold, filter }) working as (req, res, next) on bare node:http req/res: gzip (Vary: Accept-Encoding, no Content-Length) for Accept-Encoding: gzip at or above the threshold; below it, or without Accept-Encoding, only Vary: Accept-Encoding, as the lane then writes itself',
    );
    const seen = ({ headers }: { headers: IncomingHttpHeaders }) => ({ thrown: headers['x-thrown'], encoding: headers['content-encoding'], vary: headers.vary, length: headers['content-length'] });
    const large = await send({ 'accept-encoding': 'gzip', 'x-size': 'large' });
    expect(seen(large), changed).toEqual({ thrown: undefined, encoding: 'gzip', vary: 'Accept-Encoding', length: undefined });
    expect(JSON.parse(gunzipSync(large.body).toString()), changed).toEqual({ text: 'x'.repeat(COMPRESSION_THRESHOLD) });
    for (const headers of [{ 'accept-encoding': 'gzip' }, { 'x-size': 'large' }] as Record<string, string>[]) {
      const plain = await send(headers);
      expect(seen(plain), changed).toEqual({
        thrown: undefined,
        encoding: undefined,
        vary: 'Accept-Encoding',
        length: String(plain.body.length),
      });
    }
  });
});

/** What query-api/src/socket/coalesce.ts takes from engine.io's socket of a connection. */
interface EngineConnection {
  flush(): void;
  transport: { name: string; socket?: { send?: unknown; _socket?: unknown } };
}

describe('what the write coalescing relies on of Socket.IO and engine.io', () => {
  const http = createServer();
  const io = new Server(http);
  const clients: Socket[] = [];
  let url: string;

  beforeAll(async () => {
    url = `http://127.0.0.1:${await listen(http)}`;
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await io.close();
  });

  /** A websocket client, and its socket on the server. */
  async function open(): Promise<{ client: Socket; server: ServerSocket; conn: EngineConnection }> {
    const client = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true });
    clients.push(client);
    await new Promise<void>((done, fail) => {
      client.once('connect', () => done());
      client.once('connect_error', fail);
    });
    const server = io.sockets.sockets.get(client.id!)!;
    return { client, server, conn: server.conn as unknown as EngineConnection };
  }
  /** The payload of `event`'s next arrival, or 'nothing' after a second. */
  const arrival = (client: Socket, event: string) =>
    new Promise<unknown>((done) => {
      client.once(event, done);
      setTimeout(() => done('nothing'), 1000);
    });

  it("visits a broadcast's sockets through the adapter's apply, each socket's flush requested while it runs", async () => {
    const sockets = [await open(), await open()];
    const changed = libraryChanged(
      ADAPTER,
      'Adapter#apply(opts, callback)',
      "every broadcast, to everyone or to rooms, visiting its sockets through the adapter's apply (which it replaces on the instance), each socket's engine.io flush() called before apply returns",
      COALESCING,
    );
    const adapter = io.of('/').adapter as unknown as { apply(opts: unknown, callback: (socket: unknown) => void): void };
    expect(typeof adapter.apply, changed).toBe('function');
    const apply = adapter.apply.bind(adapter);
    let applying = 0;
    adapter.apply = (opts, callback) => {
      applying++;
      try {
        apply(opts, callback);
      } finally {
        applying--;
      }
    };
    const flushes = sockets.map(({ conn }) => {
      const seen: boolean[] = [];
      const flush = conn.flush.bind(conn);
      conn.flush = () => {
        seen.push(applying > 0);
        flush();
      };
      return seen;
    });
    try {
      const arrivals = sockets.map(({ client }) => Promise.all([arrival(client, 'everyone'), arrival(client, 'room')]));
      io.emit('everyone', 1);
      io.to(sockets[0]!.server.id).to(sockets[1]!.server.id).emit('room', 2);
      expect(flushes, changed).toEqual([
        [true, true],
        [true, true],
      ]);
      expect(await Promise.all(arrivals), changed).toEqual([
        [1, 2],
        [1, 2],
      ]);
    } finally {
      delete (adapter as Partial<typeof adapter>).apply;
      for (const { conn } of sockets) delete (conn as Partial<EngineConnection>).flush;
    }
  });

  it("sends through the engine.io socket's flush(), which sends what is queued", async () => {
    const { client, server, conn } = await open();
    const changed = libraryChanged(
      ENGINE_IO,
      'Socket#flush()',
      "every packet leaving through the socket's flush() (which it replaces on the instance, to call later), and flush() sending all packets queued until then",
      COALESCING,
    );
    expect(typeof conn.flush, changed).toBe('function');
    const flush = conn.flush.bind(conn);
    let held = 0;
    conn.flush = () => void held++;
    const received: unknown[] = [];
    client.on('held', (value: unknown) => received.push(value));
    const settled = () => new Promise((done) => setTimeout(done, 50));
    try {
      server.emit('held', 1);
      server.emit('held', 2);
      expect(held, changed).toBe(2);
      await settled();
      expect(received, changed).toEqual([]);
    } finally {
      delete (conn as Partial<EngineConnection>).flush;
    }
    flush();
    await settled();
    expect(received, changed).toEqual([1, 2]);
  });

  it("writes a websocket's frames to transport.socket._socket, a net.Socket that cork() holds them in", async () => {
    const { client, server, conn } = await open();
    const transportChanged = libraryChanged(ENGINE_IO, "the websocket transport's `socket`", 'transport.socket being the ws WebSocket of the connection', COALESCING);
    expect(conn.transport.name, transportChanged).toBe('websocket');
    expect(typeof conn.transport.socket?.send, transportChanged).toBe('function');
    const changed = libraryChanged(
      WS,
      'WebSocket#_socket',
      "transport.socket._socket being the net.Socket a WebSocket's frames are written to, so that cork()/uncork() around flush() sends a socket's packets in one write",
      COALESCING,
    );
    const raw = conn.transport.socket?._socket;
    expect(raw instanceof NetSocket, changed).toBe(true);
    const socket = raw as NetSocket;
    const got = arrival(client, 'corked');
    socket.cork();
    try {
      server.emit('corked', 1);
      expect(socket.writableLength, changed).toBeGreaterThan(0);
    } finally {
      socket.uncork();
    }
    expect(await got, changed).toBe(1);
  });
});
