import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/**
 * Socket.IO clients written by hand on raw TCP, so that they can do what no library client
 * does: stop reading. The kernel's buffers then fill and whatever the server still sends waits
 * in the server process, as with a stalled phone or a hostile script.
 */
export interface SilentClient {
  /**
   * Sends raw WebSocket text frames (websocket clients only). Not reading, the client does not
   * notice the server closing the connection: tests look at the server's side.
   */
  send(texts: string[]): Promise<void>;
  /** Closes it from the client's side (a reset, as when a script is killed). */
  destroy(): void;
}

/** A client WebSocket frame: FIN, text, masked (RFC 6455, section 5.2). */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x81, 0x80 | length])
      : length < 65_536
        ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 255])
        : Buffer.concat([Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 0]), Buffer.from([(length >>> 24) & 255, (length >>> 16) & 255, (length >>> 8) & 255, length & 255])]);
  const mask = randomBytes(4);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

function open(origin: string): Promise<Socket> {
  const { hostname, port } = new URL(origin);
  return new Promise((done, fail) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => done(socket));
    socket.once('error', fail);
  });
}

/** Reads until the end of the response head; what came after it stays unread in `rest`. */
function readHead(socket: Socket, timeoutMs = 5_000): Promise<{ head: string; rest: Buffer }> {
  return new Promise((done, fail) => {
    let seen = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new Error('no response head')), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.off('data', onData);
      done({ head: seen.subarray(0, end).toString(), rest: seen.subarray(end + 4) });
    };
    socket.on('data', onData);
    socket.once('close', () => fail(new Error(`closed before a response head: ${seen.toString().slice(0, 200)}`)));
  });
}

/** Reads until `pattern` has arrived (the engine.io open packet, then Socket.IO's connect answer). */
function readSome(socket: Socket, already: Buffer, pattern: string, timeoutMs = 5_000): Promise<void> {
  if (already.includes(pattern)) return Promise.resolve();
  return new Promise((done, fail) => {
    let seen = already;
    const timer = setTimeout(() => fail(new Error(`no "${pattern}" from the server: ${seen.toString().slice(0, 200)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      if (!seen.includes(pattern)) return;
      clearTimeout(timer);
      socket.off('data', onData);
      done();
    };
    socket.on('data', onData);
  });
}

function silent(socket: Socket): SilentClient {
  socket.on('error', () => undefined);
  return {
    send: (texts) =>
      new Promise((done) => {
        if (socket.destroyed) return done();
        socket.write(Buffer.concat(texts.map(maskedTextFrame)), () => done());
      }),
    destroy: () => socket.resetAndDestroy(),
  };
}

/**
 * A guest WebSocket that completes its upgrade and Socket.IO's connect (`40`), then never reads
 * again. `address` goes in X-Forwarded-For (believed from loopback, as behind the proxy).
 */
export async function silentWebSocket(origin: string, options: { address?: string } = {}): Promise<SilentClient> {
  const socket = await open(origin);
  const { host } = new URL(origin);
  const request = [
    'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1',
    `Host: ${host}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    ...(options.address ? [`X-Forwarded-For: ${options.address}`] : []),
    '',
    '',
  ].join('\r\n');
  socket.write(request);
  const { head, rest } = await readHead(socket);
  if (!head.startsWith('HTTP/1.1 101')) {
    socket.destroy();
    throw new Error(`upgrade refused: ${head.split('\r\n')[0]}`);
  }
  // engine.io's open packet ("0{…sid…}"), then Socket.IO's connect and its answer ("40{…}").
  await readSome(socket, rest, '"sid"');
  socket.write(maskedTextFrame('40'));
  await readSome(socket, Buffer.alloc(0), '40{');
  // From here on nothing is read: the kernel's buffers fill, then the server's.
  socket.pause();
  return silent(socket);
}

/** One long-polling request, read to its end (the handshake and `40`, before the client falls silent). */
async function poll(origin: string, path: string, init: { method: string; body?: string; address?: string }): Promise<string> {
  const res = await fetch(origin + path, {
    method: init.method,
    headers: { 'content-type': 'text/plain;charset=UTF-8', ...(init.address ? { 'x-forwarded-for': init.address } : {}) },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${init.method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return text;
}

/**
 * A guest on long-polling: the handshake and Socket.IO's connect (`40`) as a browser sends them,
 * then `reads` read events posted, then one more poll left open and never read (`holdPoll`), or
 * no poll at all: the server has nowhere to send what it queued.
 */
export async function silentLongPolling(origin: string, options: { address?: string; reads?: string[]; holdPoll?: boolean } = {}): Promise<SilentClient> {
  const handshake = await poll(origin, '/socket.io/?EIO=4&transport=polling', { method: 'GET', ...(options.address ? { address: options.address } : {}) });
  const sid = /"sid":"([^"]+)"/.exec(handshake)?.[1];
  if (!sid) throw new Error(`no sid in the handshake: ${handshake.slice(0, 200)}`);
  const path = `/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(sid)}`;
  const address = options.address ? { address: options.address } : {};
  await poll(origin, path, { method: 'POST', body: '40', ...address });
  const connected = await poll(origin, path, { method: 'GET', ...address });
  if (!connected.includes('40')) throw new Error(`no connect answer: ${connected.slice(0, 200)}`);
  // Several packets in one POST are separated by the record separator (engine.io protocol v4).
  if (options.reads?.length) await poll(origin, path, { method: 'POST', body: options.reads.join('\x1e'), ...address });
  const socket = await open(origin);
  if (options.holdPoll !== false) {
    const { host } = new URL(origin);
    socket.write([`GET ${path} HTTP/1.1`, `Host: ${host}`, ...(options.address ? [`X-Forwarded-For: ${options.address}`] : []), '', ''].join('\r\n'));
  }
  socket.pause();
  return silent(socket);
}
