import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../wiring/http';
import { serviceEntry } from '../test-support/spawn-process';
import { CLIENT_IDLE_TIMEOUT_MS, createProxy, STICKY_COOKIE } from './proxy';

/** A backend that answers who it is, what it was asked, and echoes request bodies. */
function backend(name: string): Server {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'from=backend; Path=/' });
      res.end(JSON.stringify({ name, method: req.method, url: req.url, body, forwardedFor: req.headers['x-forwarded-for'] ?? null }));
    });
  });
  // A WebSocket-style upgrade: answer 101 and echo what arrives on the tunnel.
  server.on('upgrade', (_req, socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (chunk: Buffer) => socket.write(`${name}:${chunk.toString()}`));
    // HTTP servers allow half-open sockets: end ours when the proxy ends the tunnel.
    socket.on('end', () => socket.end());
  });
  return server;
}

describe('the Node proxy', () => {
  const logger = pino({ level: 'silent' });
  const servers: Server[] = [];
  let proxyUrl: string;
  let proxy: ReturnType<typeof createProxy>;

  beforeAll(async () => {
    const [command, q1, q2] = ['command', 'query-1', 'query-2'].map(backend) as [Server, Server, Server];
    servers.push(command, q1, q2);
    const [commandUrl, q1Url, q2Url] = await Promise.all([command, q1, q2].map((s) => listen(s, '127.0.0.1', 0)));
    // A third query-api URL where nothing listens: idempotent requests fail over from it.
    const dead = createServer();
    await listen(dead, '127.0.0.1', 0);
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((done) => dead.close(done));
    proxy = createProxy({ commandApiUrl: commandUrl!, queryApiUrls: [q1Url!, q2Url!, deadUrl], logger });
    proxyUrl = await listen(proxy.server, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await proxy.close();
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  });

  const ask = async (method: string, path: string, init: RequestInit = {}) => {
    const res = await fetch(proxyUrl + path, { method, ...init });
    return { res, body: (await res.json()) as { name: string; method: string; url: string; body: string; forwardedFor: string | null } };
  };

  it('sends state changes to command-api and reads to query-api, bodies and query strings intact', async () => {
    const write = await ask('POST', '/api/chat-messages?x=1', { body: '{"message":"hi"}', headers: { 'content-type': 'application/json' } });
    expect(write.body).toMatchObject({ name: 'command', method: 'POST', url: '/api/chat-messages?x=1', body: '{"message":"hi"}' });
    expect(write.body.forwardedFor).toMatch(/127\.0\.0\.1$/);
    expect(write.res.headers.getSetCookie()).toEqual(['from=backend; Path=/']);
    expect((await ask('GET', '/api/verify-access/u1')).body.name).toBe('command');
    expect((await ask('GET', '/api/main-data')).body.name).toMatch(/^query-/);
    expect((await ask('GET', '/ranking')).body.name).toMatch(/^query-/);
  });

  it('spreads reads over the query-api instances and skips one that refuses connections', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 6; i++) names.add((await ask('GET', '/api/main-data')).body.name);
    expect([...names].sort()).toEqual(['query-1', 'query-2']);
  });

  it('keeps Socket.IO long-polling on one instance with a cookie', async () => {
    const first = await ask('GET', '/socket.io/?EIO=4&transport=polling');
    const sticky = first.res.headers.getSetCookie().find((c) => c.startsWith(`${STICKY_COOKIE}=`));
    expect(sticky).toMatch(/HttpOnly/);
    const cookie = sticky!.split(';')[0]!;
    for (let i = 0; i < 4; i++) {
      const again = await ask('GET', '/socket.io/?EIO=4&transport=polling&sid=x', { headers: { cookie } });
      expect(again.body.name).toBe(first.body.name);
    }
  });

  it('tunnels upgrades', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(proxyUrl);
    const socket = connect(Number(port), '127.0.0.1');
    const received: string[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk.toString()));
    socket.write('GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    await expect.poll(() => received.join('')).toMatch(/^HTTP\/1.1 101/);
    socket.write('ping');
    await expect.poll(() => received.join('')).toMatch(/query-\d:ping$/);
    socket.destroy();
  });

  it('forwards headers as a proxy must: hop-by-hop ones dropped both ways, X-Forwarded-* its own, duplicates merged as Node merges them', async () => {
    // A backend that answers the headers it got, with hop-by-hop ones and repeated cookies of its own.
    const echo = createServer((req, res) => {
      req.resume();
      const body = JSON.stringify(req.headers);
      res.writeHead(200, [['content-type', 'application/json'], ['content-length', String(Buffer.byteLength(body))], ['keep-alive', 'timeout=99'], ['x-backend', 'yes'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']]);
      res.end(body);
    });
    const echoUrl = await listen(echo, '127.0.0.1', 0);
    const front = createProxy({ commandApiUrl: echoUrl, queryApiUrls: [echoUrl], logger });
    const url = new URL(await listen(front.server, '127.0.0.1', 0));
    // Raw lines over a socket of our own (fetch would merge duplicates and refuse hop-by-hop
    // headers); each request asks the proxy to close the connection after its answer.
    const send = (lines: string[]) =>
      new Promise<string>((done, failed) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('end', () => done(text));
        socket.on('error', failed);
      });
    const split = (text: string) => {
      const [head, body] = text.split('\r\n\r\n') as [string, string];
      return { head: head.toLowerCase().split('\r\n'), body: JSON.parse(body) as Record<string, string> };
    };
    try {
      const first = split(
        await send([
          'POST /api/chat-messages HTTP/1.1',
          'Host: example.test',
          'Host: second.test',
          'Connection: close, x-secret',
          'Keep-Alive: timeout=1',
          'Proxy-Authorization: Basic eA==',
          'TE: trailers',
          'X-Forwarded-For: 10.0.0.1',
          'x-forwarded-for: 10.0.0.2',
          'X-Forwarded-Proto: https',
          'X-Forwarded-Host: spoofed.test',
          'X-Request-Id: abc-1',
          'Cookie: a=1',
          'Cookie: b=2',
          'Content-Length: 2',
          '',
          '{}',
        ]),
      );
      expect(first.body).toMatchObject({
        host: 'example.test',
        'x-forwarded-for': '10.0.0.1, 10.0.0.2, 127.0.0.1',
        'x-forwarded-proto': 'http',
        'x-forwarded-host': 'example.test',
        'x-request-id': 'abc-1',
        cookie: 'a=1; b=2',
        'content-length': '2',
      });
      for (const hop of ['keep-alive', 'proxy-authorization', 'te']) expect(first.body).not.toHaveProperty(hop);
      expect(first.body.connection).toBe('keep-alive');
      expect(first.head[0]).toBe('http/1.1 200 ok');
      expect(first.head).toContain('x-backend: yes');
      expect(first.head.filter((line) => line.startsWith('set-cookie:'))).toEqual(['set-cookie: a=1', 'set-cookie: b=2']);
      expect(first.head).not.toContain('keep-alive: timeout=99');

      // HTTP/1.0 without a Host: the backend's own host; no request id: a new one.
      const bare = split(await send(['GET /api/main-data HTTP/1.0', 'X-Forwarded-Host: kept.test']));
      expect(bare.body.host).toBe(new URL(echoUrl).host);
      expect(bare.body['x-forwarded-host']).toBe('kept.test');
      expect(bare.body['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await front.close();
      echo.closeAllConnections();
      await new Promise((done) => echo.close(done));
    }
  });

  it("keeps a client's idle connection as Caddy does (5 min), not Node's 5 s: a request 6 s later goes on the same one", async () => {
    const url = new URL(proxyUrl);
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => (closed = true));
    const answers = () => text.split('HTTP/1.1 ').length - 1;
    const ask = async (count: number) => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
      await expect.poll(answers).toBe(count);
    };
    try {
      await ask(1);
      // Told to clients, which keep the connection for as long (undici and browsers read it).
      expect(text.toLowerCase()).toContain(`keep-alive: timeout=${CLIENT_IDLE_TIMEOUT_MS / 1000}`);
      await new Promise((done) => setTimeout(done, 6_000));
      expect(closed).toBe(false);
      await ask(2);
      expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    } finally {
      socket.destroy();
    }
  });

  it('answers its own /healthz, hides operator endpoints, and says 502 in JSON when command-api is down', async () => {
    expect(await (await fetch(`${proxyUrl}/healthz`)).json()).toEqual({ status: 'ok', service: 'proxy' });
    expect((await fetch(`${proxyUrl}/metrics`)).status).toBe(404);
    const down = createProxy({ commandApiUrl: 'http://127.0.0.1:1', queryApiUrls: ['http://127.0.0.1:1'], logger });
    const url = await listen(down.server, '127.0.0.1', 0);
    try {
      const res = await fetch(`${url}/api/free-point`, { method: 'POST' });
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: 'The service is temporarily unavailable, please try again' });
    } finally {
      await down.close();
    }
  });
});

describe('service entry points', () => {
  it('refuse to start without what they need, with one line naming the variable', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', serviceEntry('projector')], {
      env: { ...process.env, EVENT_STORE_URL: 'postgres://postgres@127.0.0.1:5432/test', REDIS_URL: '' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('Invalid setting REDIS_URL: is required by the projector service');
  });
});
