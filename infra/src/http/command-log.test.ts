import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import type { EventStore } from '@pass/events';
import { eventually } from '@pass/events/test-support';
import { openPgliteEventStore } from '@pass/events/store';
import { createAppShell, createFastLaneShell, type AppShellOptions } from './app-shell';
import { withFastLane } from './fast-lane';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  correlationId?: string;
  res?: { statusCode: number };
  commands?: Array<Record<string, unknown>>;
  command?: string;
  outcome?: string;
}

/** A logger whose lines the test reads back. */
function capturedLogger() {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function post(base: string, path: string, body: unknown, requestId: string, cookie = '') {
  const res = await fetch(base + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...(cookie && { cookie }) } });
  const session = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { status: res.status, session };
}

describe("a command's log line", () => {
  let store: EventStore;
  let uploadsDir: string;
  const apis: CommandApi[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    store = await openPgliteEventStore();
    uploadsDir = await mkdtemp(join(tmpdir(), 'pass-command-log-'));
  });
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    for (const api of apis) await api.close();
    await store.close();
    await rm(uploadsDir, { recursive: true, force: true });
  });

  async function commandApi(logger: pino.Logger): Promise<CommandApi> {
    const api = await createCommandApi({ eventStore: store, logger, config: { cookieSecure: false, sessionSecret: 'x'.repeat(40), uploadsDir } });
    apis.push(api);
    return api;
  }

  it("is its request's access line, on the fast lane and behind Express: one line per command, with its outcome", async () => {
    const { lines, logger } = capturedLogger();
    const api = await commandApi(logger);
    const shell: AppShellOptions = { logger, serveWebApp: false, routers: [api.router] };
    const laneShell = createFastLaneShell(shell);
    const server = createServer(withFastLane(createAppShell(shell, laneShell), laneShell, api.fastLane));
    servers.push(server);
    const base = await listening(server);

    // Express: joining.
    const joined = await post(base, '/api/register-user', { email: 'log-line@example.com', password: 'pass1' }, 'req-join');
    expect(joined.status).toBe(201);
    // The fast lane: a chat message.
    expect((await post(base, '/api/chat-messages', { message: 'hola' }, 'req-chat', joined.session)).status).toBe(201);
    // A refusal: a free point asked for as soon as its countdown starts.
    const ticket = await fetch(`${base}/api/free-point/ticket`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: joined.session } });
    const { ticket: value } = (await ticket.json()) as { ticket: string };
    expect((await post(base, '/api/free-point', { ticket: value }, 'req-again', joined.session)).status).toBe(429);

    await eventually(() => expect(['req-join', 'req-chat', 'req-again'].every((id) => lines.some((l) => l.reqId === id && l.msg === 'request completed'))).toBe(true));
    for (const id of ['req-join', 'req-chat', 'req-again']) {
      // Nothing but the access line for the request, and no separate command line for it.
      expect(lines.filter((l) => l.reqId === id || l.correlationId === id).map((l) => l.msg), id).toEqual(['request completed']);
    }
    const lineOf = (id: string) => lines.find((l) => l.reqId === id)!;
    expect(lineOf('req-chat').commands).toEqual([expect.objectContaining({ command: 'SendChatMessage', outcome: 'accepted', events: 1, stream: expect.stringMatching(/^user-/) })]);
    expect(lineOf('req-join').commands).toEqual(expect.arrayContaining([expect.objectContaining({ command: 'RegisterUser', outcome: 'accepted' })]));
    // A refused command is on its request's warn line, with the domain error's code.
    expect(lineOf('req-again')).toMatchObject({ level: 40, res: { statusCode: 429 } });
    expect(lineOf('req-again').commands).toEqual([expect.objectContaining({ command: 'AwardFreePoint', outcome: 'rejected', code: 'too_soon' })]);
  });

  it('is a line of its own where no access line waits for it', async () => {
    const { lines, logger } = capturedLogger();
    const api = await commandApi(logger);
    const app = express();
    app.use(api.router);
    const server = createServer(app);
    servers.push(server);
    const base = await listening(server);

    expect((await post(base, '/api/register-user', { email: 'own-line@example.com', password: 'pass1' }, 'req-bare')).status).toBe(201);
    await eventually(() => expect(lines.some((l) => l.correlationId === 'req-bare' && l.msg === 'command' && l.command === 'RegisterUser')).toBe(true));
    expect(lines.find((l) => l.correlationId === 'req-bare' && l.command === 'RegisterUser')).toMatchObject({ outcome: 'accepted', level: 30 });
  });
});
