/**
 * Chat fan-out benchmark: one chat message pushed to 5,000 connected Socket.IO clients, p99 of
 * delivery under 300 ms, on the real processes spawned as children.
 *
 *   node --import tsx bench/fanout.ts                       (both layouts)
 *   FANOUT_LAYOUTS=standalone node --import tsx bench/fanout.ts
 *   FANOUT_SOCKETS=2000 FANOUT_ROUNDS=10 FANOUT_WORKERS=2 …  (smaller runs)
 *   FANOUT_CPU_PROF=/tmp/prof …                              (V8 CPU profile of each server process)
 *
 * - Receivers are guest sockets (no cookie: the product pushes chat to every connected socket,
 *   signed in or not) on the websocket transport, as the browser connects. They are spread over
 *   FANOUT_WORKERS child processes of this file (FANOUT_ROLE=clients), because 5,000
 *   socket.io-client instances decoding every frame in one event loop would queue deliveries
 *   behind each other and measure the client, not the server. Sockets connect in waves from
 *   loopback addresses 127.0.1.x (the server has no per-address socket limit; the spread only
 *   keeps ephemeral ports far from exhaustion across repeated runs).
 * - One clock for every process: `process.hrtime.bigint()` is CLOCK_MONOTONIC on Linux, shared
 *   by all processes of the host, so a worker's arrival time and the coordinator's send time
 *   are comparable to the microsecond.
 * - Senders are members registered over HTTP, sending `sendChatMessage` with an ack over their
 *   own cookie-carrying websocket. The shipped limits stay: 5 messages per member and 30 per
 *   address per 10 s, so each sender sends at most 5 messages, each from its own address.
 * - Rounds are sequential: send, wait until every receiver has the message (or 5 s), pause,
 *   next. The first FANOUT_WARMUP rounds are not counted. For every measured delivery:
 *   arrival − send, and arrival − the sender's ack (0 when the push beat the ack).
 * - Server CPU (utime + stime from /proc) over the measured rounds, divided by their number:
 *   the whole path per message (command, append, projection, both broadcasts a chat message
 *   causes — `updatedMainData` for the message counter, then `chatMessage`), and the servers'
 *   write system calls per delivery (/proc/<pid>/io): the fan-out's cost is almost all in them.
 * - Distributed: the four service processes on a fresh PostgreSQL schema and Redis key prefix
 *   (infra/src/test-support/faults/cluster.ts, removed afterwards), half the receivers on each query-api. A
 *   Redis subscriber on the Socket.IO channel timestamps each projector publish, which splits
 *   the delay into the projector's lag behind the store and the fan-out after it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, SendChatMessageResponse, ServerToClientEvents } from '@pass/events';
import { withBenchStandalone } from './standalone';
import { postFrom } from './live';
import { cpuSeconds } from './proc-cpu';

export const COMMAND = 'node --import tsx bench/fanout.ts';
const SOCKETS = Number(process.env.FANOUT_SOCKETS ?? 5000);
const ROUNDS = Number(process.env.FANOUT_ROUNDS ?? 20);
const WARMUP = Number(process.env.FANOUT_WARMUP ?? 2);
const WORKERS = Number(process.env.FANOUT_WORKERS ?? 4);
const LAYOUTS = (process.env.FANOUT_LAYOUTS ?? 'standalone,distributed').split(',');
/** DEFAULT_ACTION_LIMITS.chatPerUser: 5 per member per 10 s. */
const PER_SENDER = 5;
/** Sockets connecting at once in each worker. */
const CONNECT_CONCURRENCY = 50;
const SOCKETS_PER_ADDRESS = 250;
const ROUND_TIMEOUT_MS = 5000;
/** Pause between a round's last delivery and the next send. */
const GAP_MS = 300;
const TARGET_P99_MS = 300;
/**
 * FANOUT_CPU_PROF=<dir>: each server process writes a V8 CPU profile there when it exits. Node 20
 * refuses --cpu-prof in NODE_OPTIONS, so a preloaded module drives the inspector's profiler.
 */
function profilingEnv(): Record<string, string> {
  const dir = process.env.FANOUT_CPU_PROF;
  if (!dir) return {};
  mkdirSync(dir, { recursive: true });
  const preload = join(dir, 'cpu-prof-preload.mjs');
  writeFileSync(
    preload,
    [
      `import { Session } from 'node:inspector';`,
      `import { writeFileSync } from 'node:fs';`,
      `const session = new Session();`,
      `session.connect();`,
      `session.post('Profiler.enable');`,
      `session.post('Profiler.start');`,
      // A same-thread inspector session answers synchronously, so this works in 'exit'.
      `process.on('exit', () => session.post('Profiler.stop', (error, result) => {`,
      `  if (!error) writeFileSync(${JSON.stringify(dir)} + '/server-' + process.pid + '.cpuprofile', JSON.stringify(result.profile));`,
      `}));`,
    ].join('\n'),
  );
  return { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` };
}
// Each loopback address holds SOCKETS_PER_ADDRESS receivers, far more than a visitor's tabs.
const serverEnv = { ...profilingEnv(), SOCKETS_PER_CLIENT: String(SOCKETS_PER_ADDRESS) };

type FanSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
type AckAnswer = Parameters<NonNullable<Parameters<ClientToServerEvents['sendChatMessage']>[1]>>[0];

/** Milliseconds on CLOCK_MONOTONIC: the same clock in every process of this host. */
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function open(url: string, options: { cookie?: string; address?: string } = {}): FanSocket {
  return connect(url, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    timeout: 60_000,
    ...(options.cookie ? { extraHeaders: { cookie: options.cookie } } : {}),
    ...(options.address ? { transportOptions: { websocket: { localAddress: options.address } } } : {}),
  });
}

const connected = (socket: FanSocket) =>
  new Promise<void>((done, fail) => {
    if (socket.connected) return done();
    socket.once('connect', () => done());
    socket.once('connect_error', fail);
  });

// ---------------------------------------------------------------- client worker (child process)

type ToWorker = { type: 'connect'; targets: { url: string; address: string }[] } | { type: 'collect'; ids: string[] } | { type: 'close' };
type FromWorker =
  | { type: 'connected'; connected: number; failed: number; error?: string }
  | { type: 'complete'; id: string }
  | { type: 'arrivals'; arrivals: Record<string, number[]>; dropped: number };

function send(message: FromWorker): void {
  process.send!(message);
}

/** Holds a share of the receivers; reports when all of them have a message, and every arrival on request. */
async function clientWorker(): Promise<void> {
  const sockets: FanSocket[] = [];
  const arrivals = new Map<string, { at: Float64Array; count: number }>();
  let dropped = 0;
  let closing = false;
  const onMessage = (index: number, id: string) => {
    const at = now();
    let entry = arrivals.get(id);
    if (!entry) arrivals.set(id, (entry = { at: new Float64Array(sockets.length).fill(-1), count: 0 }));
    if (entry.at[index] !== -1) return;
    entry.at[index] = at;
    if (++entry.count === sockets.length) send({ type: 'complete', id });
  };
  process.on('message', (message: ToWorker) => {
    if (message.type === 'connect') {
      void connectAll(message.targets);
    } else if (message.type === 'collect') {
      const out: Record<string, number[]> = {};
      for (const id of message.ids) out[id] = Array.from(arrivals.get(id)?.at ?? new Float64Array(sockets.length).fill(-1));
      send({ type: 'arrivals', arrivals: out, dropped });
    } else {
      closing = true;
      for (const s of sockets) s.disconnect();
      // Let the close frames go out, then leave (client timers would keep the process up).
      setTimeout(() => process.exit(0), 200);
    }
  });
  const connectAll = async (targets: { url: string; address: string }[]) => {
    let failed = 0;
    let error: string | undefined;
    let next = 0;
    const ok: FanSocket[] = [];
    await Promise.all(
      Array.from({ length: CONNECT_CONCURRENCY }, async () => {
        for (let i = next++; i < targets.length; i = next++) {
          const socket = open(targets[i]!.url, { address: targets[i]!.address });
          try {
            await connected(socket);
            ok.push(socket);
          } catch (e) {
            failed++;
            error ??= (e as Error).message;
            socket.close();
          }
        }
      }),
    );
    // Indexes are fixed once every socket is in, so a message's arrival array has one slot each.
    ok.forEach((socket, index) => {
      sockets.push(socket);
      socket.on('chatMessage', (m) => onMessage(index, m.id));
      socket.on('disconnect', () => void (closing || dropped++));
    });
    send({ type: 'connected', connected: ok.length, failed, ...(error ? { error } : {}) });
  };
}

// ---------------------------------------------------------------- coordinator

interface Worker {
  child: ChildProcess;
  next<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>>;
}

function startWorker(onComplete: (id: string) => void): Worker {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FANOUT_ROLE: 'clients' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (m: FromWorker) => void>();
  child.on('message', (m: FromWorker) => {
    if (m.type === 'complete') return onComplete(m.id);
    waiting.get(m.type)?.(m);
    waiting.delete(m.type);
  });
  return {
    child,
    next: (type) =>
      new Promise((done, fail) => {
        waiting.set(type, done as (m: FromWorker) => void);
        child.once('exit', (code) => fail(new Error(`client worker exited with ${code}`)));
      }),
  };
}

/** Write-type system calls a process made so far (/proc/<pid>/io syscw, Linux). */
function writeCalls(pid: number): number {
  try {
    return Number(/syscw: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
  } catch {
    return Number.NaN;
  }
}

/** Members who send, each from its own address (30 per address per 10 s would allow 6, 5 per member caps it). */
async function openSenders(joinUrl: string, socketUrl: string, count: number): Promise<FanSocket[]> {
  const tag = randomUUID().slice(0, 6);
  return Promise.all(
    Array.from({ length: count }, async (_, k) => {
      const address = `127.0.0.${2 + k}`;
      const res = await postFrom(new URL(joinUrl), '/api/register-user', { email: `f${tag}${k}@bench.io`, password: 'bench1' }, address);
      if (res.status !== 201 || !res.cookie) throw new Error(`register from ${address} answered ${res.status}: ${res.text.slice(0, 200)}`);
      const socket = open(socketUrl, { cookie: res.cookie, address });
      await connected(socket);
      return socket;
    }),
  );
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

interface Stats {
  p50: number;
  p99: number;
  max: number;
}
const statsOf = (values: number[]): Stats => {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN };
};

export interface FanoutFigures {
  layout: string;
  socketsWanted: number;
  socketsConnected: number;
  connectFailures: string[];
  serverCount: number | undefined;
  rounds: number;
  deliveries: number;
  missing: number;
  dropped: number;
  fromSend: Stats;
  fromAck: Stats;
  pushBeforeAck: number;
  roundP99: { min: number; max: number };
  sendToAck: Stats;
  /** Distributed: ack → the projector's publish of that chatMessage, and that publish → delivery. */
  ackToPublish?: Stats;
  fromPublish?: Stats;
  /** Write system calls of the server processes per delivered message (1 = one per socket per chat message). */
  serverWritesPerDelivery: number;
  refused: string[];
  serverCpuPerMessage: number[];
  clientCpuPerMessage: number;
  load: [number, number];
  connectSeconds: number;
}

interface Layout {
  name: string;
  /** Where receivers connect, in turn. */
  socketUrls: string[];
  joinUrl: string;
  serverPids: number[];
  /**
   * Distributed: when each broadcast left the projector, as a subscriber to the Socket.IO Redis
   * channel sees it (raw message and arrival time), so the fan-out can be told from the
   * projector's lag behind the store.
   */
  published?: { at: number; raw: Buffer }[];
}

async function measureFanout(layout: Layout): Promise<FanoutFigures> {
  const complete = new Map<string, number>();
  const workers = Array.from({ length: WORKERS }, () => startWorker((id) => complete.set(id, (complete.get(id) ?? 0) + 1)));
  try {
    return await measureWith(layout, workers, complete);
  } finally {
    // Workers leave by themselves once told to close; this ends them after a failed run too.
    await sleep(1000);
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill();
  }
}

/** Connects the receivers, runs the rounds and measures them; `complete` counts the workers done with each message id. */
async function measureWith(layout: Layout, workers: Worker[], complete: Map<string, number>): Promise<FanoutFigures> {
  const connectStarted = now();
  const targets = Array.from({ length: SOCKETS }, (_, i) => ({
    url: layout.socketUrls[i % layout.socketUrls.length]!,
    address: `127.0.1.${1 + Math.floor(i / SOCKETS_PER_ADDRESS)}`,
  }));
  const shares = workers.map((_, w) => targets.filter((_, i) => i % WORKERS === w));
  const connectedReports = await Promise.all(
    workers.map((worker, w) => {
      const report = worker.next('connected');
      worker.child.send({ type: 'connect', targets: shares[w]! } satisfies ToWorker);
      return report;
    }),
  );
  const socketsConnected = connectedReports.reduce((n, r) => n + r.connected, 0);
  const connectFailures = connectedReports.filter((r) => r.failed).map((r) => `${r.failed} × ${r.error}`);

  const total = WARMUP + ROUNDS;
  const senders = await openSenders(layout.joinUrl, layout.socketUrls[0]!, Math.ceil(total / PER_SENDER));
  let serverCount: number | undefined;
  senders[0]!.on('connectedUsers', (n) => (serverCount = n));
  const connectSeconds = (now() - connectStarted) / 1000;
  // Let the last connection announcements (debounced 250 ms) go out before measuring.
  await sleep(1500);

  const rounds: { id: string; sentAt: number; ackAt: number; measured: boolean }[] = [];
  const sendToAck: number[] = [];
  const refused: string[] = [];
  const load0 = loadavg()[0]!;
  let cpu0: number[] = [];
  let writes0: number[] = [];
  let clientCpu0 = 0;
  const clientPids = workers.map((w) => w.child.pid!);
  for (let r = 0; r < total; r++) {
    const measured = r >= WARMUP;
    if (r === WARMUP) {
      cpu0 = layout.serverPids.map(cpuSeconds);
      writes0 = layout.serverPids.map(writeCalls);
      clientCpu0 = clientPids.reduce((s, pid) => s + cpuSeconds(pid), 0);
    }
    const sender = senders[Math.floor(r / PER_SENDER)]!;
    const sentAt = now();
    const answer = await new Promise<AckAnswer>((done) => sender.emit('sendChatMessage', { message: `fan-out ${r}` }, done));
    const ackAt = now();
    if (!answer.ok) {
      refused.push(`${answer.status} ${answer.error}`);
      continue;
    }
    const id = (answer.data as SendChatMessageResponse).message.id;
    rounds.push({ id, sentAt, ackAt, measured });
    if (measured) sendToAck.push(ackAt - sentAt);
    const deadline = sentAt + ROUND_TIMEOUT_MS;
    while ((complete.get(id) ?? 0) < WORKERS && now() < deadline) await sleep(5);
    await sleep(GAP_MS);
  }
  const measuredRounds = rounds.filter((r) => r.measured);
  // V8 profiles time samples on the same monotonic clock (µs): this window selects the rounds.
  if (process.env.FANOUT_CPU_PROF) process.stderr.write(`fanout: ${layout.name}: measured rounds from ${Math.round(measuredRounds[0]!.sentAt * 1000)} to ${Math.round(now() * 1000)} µs\n`);
  const serverCpuPerMessage = layout.serverPids.map((pid, k) => (cpuSeconds(pid) - cpu0[k]!) / measuredRounds.length);
  const serverWrites = layout.serverPids.reduce((n, pid, k) => n + writeCalls(pid) - writes0[k]!, 0);
  const clientCpuPerMessage = (clientPids.reduce((s, pid) => s + cpuSeconds(pid), 0) - clientCpu0) / measuredRounds.length;
  const load1 = loadavg()[0]!;

  const ids = measuredRounds.map((r) => r.id);
  const collected = await Promise.all(
    workers.map((worker) => {
      const reply = worker.next('arrivals');
      worker.child.send({ type: 'collect', ids } satisfies ToWorker);
      return reply;
    }),
  );
  for (const worker of workers) worker.child.send({ type: 'close' } satisfies ToWorker);
  for (const s of senders) s.disconnect();

  const publishedAt = (id: string) => layout.published?.find((m) => m.raw.includes(id))?.at;
  const ackToPublish: number[] = [];
  const fromPublish: number[] = [];
  const fromSend: number[] = [];
  const fromAck: number[] = [];
  const roundP99s: number[] = [];
  let missing = 0;
  let pushBeforeAck = 0;
  for (const round of measuredRounds) {
    const perRound: number[] = [];
    const published = publishedAt(round.id);
    if (published !== undefined) ackToPublish.push(published - round.ackAt);
    for (const c of collected) {
      for (const at of c.arrivals[round.id]!) {
        if (at < 0) {
          missing++;
          continue;
        }
        fromSend.push(at - round.sentAt);
        perRound.push(at - round.sentAt);
        if (at < round.ackAt) pushBeforeAck++;
        fromAck.push(Math.max(0, at - round.ackAt));
        if (published !== undefined) fromPublish.push(at - published);
      }
    }
    if (perRound.length) roundP99s.push(statsOf(perRound).p99);
  }
  return {
    layout: layout.name,
    socketsWanted: SOCKETS,
    socketsConnected,
    connectFailures,
    serverCount,
    rounds: measuredRounds.length,
    deliveries: fromSend.length,
    missing,
    dropped: collected.reduce((n, c) => n + c.dropped, 0),
    fromSend: statsOf(fromSend),
    fromAck: statsOf(fromAck),
    pushBeforeAck,
    roundP99: { min: Math.min(...roundP99s), max: Math.max(...roundP99s) },
    sendToAck: statsOf(sendToAck),
    ...(layout.published ? { ackToPublish: statsOf(ackToPublish), fromPublish: statsOf(fromPublish) } : {}),
    serverWritesPerDelivery: serverWrites / Math.max(1, fromSend.length),
    refused,
    serverCpuPerMessage,
    clientCpuPerMessage,
    load: [load0, load1],
    connectSeconds,
  };
}

function benchStandalone(): Promise<FanoutFigures> {
  return withBenchStandalone(
    'fanout',
    (service) => measureFanout({ name: 'standalone (one process, PGlite)', socketUrls: [service.url], joinUrl: service.url, serverPids: [service.child.pid!] }),
    serverEnv,
  );
}

async function benchDistributed(): Promise<FanoutFigures> {
  // Loaded here so a standalone-only run needs neither PostgreSQL nor Redis.
  const { Cluster } = await import('../infra/src/test-support/faults/cluster');
  const { testRedisUrl } = await import('@pass/events/test-support');
  // A fresh PostgreSQL schema and a Redis key prefix of its own, both removed by close().
  const cluster = new Cluster({ redisUrl: testRedisUrl(), env: serverEnv });
  const { Redis } = await import('ioredis');
  const tap = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  const published: { at: number; raw: Buffer }[] = [];
  tap.on('messageBuffer', (_channel: Buffer, raw: Buffer) => void published.push({ at: now(), raw }));
  try {
    // The emitter's channel for the default namespace (@socket.io/redis-emitter: `<key>#/#`).
    await tap.subscribe(`${cluster.prefix}socket.io#/#`);
    const commandApi = await cluster.start('command-api');
    const projector = await cluster.start('projector');
    const [a, b] = await Promise.all([cluster.start('query-a'), cluster.start('query-b')]);
    return await measureFanout({
      name: 'distributed (command-api + projector + 2 × query-api, PostgreSQL + Redis)',
      socketUrls: [a.url, b.url],
      joinUrl: commandApi.url,
      serverPids: [commandApi, projector, a, b].map((s) => s.child.pid!),
      published,
    });
  } finally {
    tap.disconnect();
    await cluster.close();
  }
}

const f1 = (n: number) => n.toFixed(1);
const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const verdict = (value: number, limit: number) => (value < limit ? 'met' : 'NOT met');

function render(figures: FanoutFigures[]): string {
  const lines = [
    `Reproduce: \`${COMMAND}\` (FANOUT_LAYOUTS=standalone or distributed for one row). Servers are spawned as children (\`npm start\` minus the web build; distributed: the four service entry points on a fresh PostgreSQL schema and Redis key prefix). \`ulimit -n\` must exceed the sockets per process (20,000 here).`,
    `${f0(SOCKETS)} guest websockets (socket.io-client, websocket transport) held by ${WORKERS} worker processes, connected ${CONNECT_CONCURRENCY} at a time per worker from 127.0.1.x; distributed: half on each query-api. ${WARMUP} warm-up + ${ROUNDS} measured rounds: a member sends \`sendChatMessage\` with ack (shipped limits: ${PER_SENDER} per member, one member per address), the round ends when every socket has that \`chatMessage\` (or ${ROUND_TIMEOUT_MS / 1000} s), then ${GAP_MS} ms pause. Times on CLOCK_MONOTONIC (\`process.hrtime\`), shared by the coordinator and the workers. Each chat message also causes an \`updatedMainData\` broadcast (the message counter) sent just before it.`,
    '',
    `| figure | ${figures.map((f) => f.layout).join(' | ')} | target |`,
    `|---|${figures.map(() => '---:|').join('')}---|`,
  ];
  const row = (name: string, value: (f: FanoutFigures) => string, target: string) => lines.push(`| ${name} | ${figures.map(value).join(' | ')} | ${target} |`);
  row('sockets connected (server\'s connectedUsers: visitors, one per client address)', (f) => `${f0(f.socketsConnected)} of ${f0(f.socketsWanted)} (${f.serverCount ?? '?'})`, `${f0(SOCKETS)}`);
  row('send → delivery p50 ms', (f) => f1(f.fromSend.p50), '—');
  row('send → delivery p99 ms', (f) => `${f1(f.fromSend.p99)} (${verdict(f.fromSend.p99, TARGET_P99_MS)})`, `< ${TARGET_P99_MS}`);
  row('send → delivery max ms', (f) => f1(f.fromSend.max), '—');
  row('ack → delivery p50 / p99 / max ms', (f) => `${f1(f.fromAck.p50)} / ${f1(f.fromAck.p99)} / ${f1(f.fromAck.max)}`, '—');
  row('p99 of the best / worst round ms', (f) => `${f1(f.roundP99.min)} / ${f1(f.roundP99.max)}`, '—');
  if (figures.some((f) => f.fromPublish)) {
    const pair = (s: Stats | undefined) => (s ? `${f1(s.p50)} / ${f1(s.p99)} / ${f1(s.max)}` : '—');
    row('projector publish → delivery p50 / p99 / max ms (Redis hop + query-api fan-out)', (f) => pair(f.fromPublish), '—');
    row('ack → projector publish p50 / p99 / max ms (projector lag)', (f) => pair(f.ackToPublish), '—');
  }
  row('send → ack p50 / p99 ms', (f) => `${f1(f.sendToAck.p50)} / ${f1(f.sendToAck.p99)}`, '—');
  row('deliveries (rounds × sockets)', (f) => `${f0(f.deliveries)} (${f.rounds} × ${f0(f.socketsConnected)})`, '—');
  row('deliveries missing / sockets dropped / sends refused', (f) => `${f0(f.missing)} / ${f0(f.dropped)} / ${f.refused.length}`, '0 / 0 / 0');
  row('pushes before their ack (counted 0 ms from ack)', (f) => f0(f.pushBeforeAck), '—');
  row('server write system calls per delivery', (f) => f.serverWritesPerDelivery.toFixed(2), '—');
  row('server CPU s per message', (f) => f.serverCpuPerMessage.map((c) => c.toFixed(3)).join(' + '), '—');
  row('client workers CPU s per message', (f) => f.clientCpuPerMessage.toFixed(3), '—');
  row('load average (1 min) before → after', (f) => `${f.load[0].toFixed(2)} → ${f.load[1].toFixed(2)}`, '2 cores');
  row('setup s (connect + senders)', (f) => f1(f.connectSeconds), '—');
  for (const f of figures) {
    for (const failure of f.connectFailures) lines.push('', `${f.layout}: connect failed ${failure}`);
    for (const reason of f.refused) lines.push('', `${f.layout}: a send was refused with ${reason}`);
  }
  lines.push(
    '',
    'Server CPU per message covers the whole path (command, append, projection, both broadcasts); distributed: command-api + projector + query-a + query-b. Write system calls (/proc/<pid>/io syscw) are counted over the same window and include pings (every 25 s per socket) and the connectedUsers refresh (every 15 s per instance), so 1.0 would be exactly one per socket per chat message; before query-api coalesced a tick\'s broadcasts it was 2.1.',
    'On this 2-core machine the client workers need about as much CPU as the server and other work shares the cores, so latencies follow the load average; CPU seconds and system calls per message are the steadier figures.',
  );
  return lines.join('\n');
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const figures: FanoutFigures[] = [];
  if (LAYOUTS.includes('standalone')) figures.push(await benchStandalone());
  if (LAYOUTS.includes('distributed')) figures.push(await benchDistributed());
  return { title: `Chat fan-out (one message to ${f0(SOCKETS)} sockets)`, markdown: render(figures) };
}

if (process.env.FANOUT_ROLE === 'clients') {
  await clientWorker();
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  console.log(`## ${title}\n\n${markdown}`);
  process.exit(0);
}
