/**
 * Live-path benchmark: from a chat command's acknowledgement at the sender to
 * the projector's `chatMessage` push at another socket, at a steady 500 commands/s, through the
 * real standalone process (command-api + projector + query-api + Socket.IO, PGlite on a fresh
 * DATA_DIR) spawned as a child, as `npm start` runs it.
 *
 *   node --import tsx bench/live.ts            (LIVE_RATE=250 for another rate)
 *
 * - Members register over HTTP (argon2id, session cookie) and send `sendChatMessage` with an ack
 *   over their own websocket, the cookie in the handshake, as the web app does.
 * - The product's limits stay as shipped: 5 chat messages per member per 10 s and 30 per client
 *   address per 10 s (fixed windows), 60 joins per address per 15 min. So each member sends
 *   exactly 5 messages and each loopback address (127.0.0.2 …, via localAddress) carries 5
 *   members: 500/s for 11 s needs 1,100 members on 220 addresses. Nothing is bypassed.
 * - Every chat message is pushed to every connected socket, so 1,100 sockets open at once would
 *   measure a 550,000 frames/s fan-out, not the live path. Members therefore come in groups of
 *   10 that connect 400 ms before their 100 ms slot (each sends a message every 20 ms) and leave
 *   once acknowledged: about 50 sockets are open at a time while the server keeps up, plus the
 *   observer. CPU of the server and of the bench process is read from /proc while sending.
 * - Open loop: message i is due at start + i × 2 ms whatever the earlier ones do. The first second
 *   is warm-up and not counted. ack → push is measured in this process (one clock): the moment the
 *   sender's ack arrives to the moment the observer (a guest socket) receives that message id; a
 *   push that beats its ack counts as 0 ms.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, SendChatMessageResponse, ServerToClientEvents } from '@pass/events';
import { withBenchStandalone } from './standalone';
import { cpuSeconds } from './proc-cpu';

export const COMMAND = 'node --import tsx bench/live.ts';
/** The target's rate; LIVE_RATE=250 shows the same path below the knee on a busy machine. */
const RATE = Number(process.env.LIVE_RATE ?? 500);
const SECONDS = 10;
const WARMUP_SECONDS = 1;
/** DEFAULT_ACTION_LIMITS.chatPerUser (5 per 10 s): each member sends exactly this many. */
const PER_MEMBER = 5;
/** DEFAULT_ACTION_LIMITS.chatPerIp (30 per 10 s) ≥ 5 members × 5 messages; 5 joins ≤ 60 per 15 min. */
const MEMBERS_PER_ADDRESS = 5;
const GROUP = 10;
/** Groups connect this many slots (of GROUP × PER_MEMBER / RATE = 100 ms) ahead. */
const LEAD_GROUPS = 4;
const REGISTER_CONCURRENCY = 12;
const TARGETS = { p50Ms: 10, p99Ms: 50 };

type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
type AckAnswer = Parameters<NonNullable<Parameters<ClientToServerEvents['sendChatMessage']>[1]>>[0];

interface Member {
  cookie: string;
  address: string;
}

export interface LiveFigures {
  layout: string;
  sent: number;
  measured: number;
  achievedPerSecond: number;
  ackToPush: { p50: number; p95: number; p99: number; max: number };
  sendToAck: { p50: number; p99: number };
  pushBeforeAck: number;
  refused: Record<string, number>;
  /** Sent but never acknowledged within 10 s of the last send (neither accepted nor refused). */
  unanswered: number;
  missing: number;
  lateSockets: number;
  maxOpenSockets: number;
  load: [number, number];
  setupSeconds: number;
  /** CPU seconds per second of each server process and of the bench process while sending. */
  serverCpu: number[];
  benchCpu: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const addressOf = (member: number) => `127.0.0.${2 + Math.floor(member / MEMBERS_PER_ADDRESS)}`;

/** POST with a chosen source address (fetch cannot pick one); returns the status and the session cookie. */
export function postFrom(base: URL, path: string, body: unknown, localAddress: string): Promise<{ status: number; cookie: string; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request(
      {
        hostname: base.hostname,
        port: base.port,
        path,
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), accept: 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const cookie = (res.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]!).join('; ');
          done({ status: res.statusCode ?? 0, cookie, text });
        });
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

async function registerMembers(url: string, count: number): Promise<Member[]> {
  const base = new URL(url);
  const tag = randomUUID().slice(0, 6);
  const members: Member[] = new Array<Member>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: REGISTER_CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const address = addressOf(i);
        const res = await postFrom(base, '/api/register-user', { email: `l${tag}${i}@bench.io`, password: 'bench1' }, address);
        if (res.status !== 201 || !res.cookie) throw new Error(`register ${i} from ${address} answered ${res.status}: ${res.text.slice(0, 200)}`);
        members[i] = { cookie: res.cookie, address };
      }
    }),
  );
  return members;
}

function open(url: string, options: { cookie?: string; address?: string } = {}): LiveSocket {
  return connect(url, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    ...(options.cookie ? { extraHeaders: { cookie: options.cookie } } : {}),
    ...(options.address ? { transportOptions: { websocket: { localAddress: options.address } } } : {}),
  });
}

const connected = (socket: LiveSocket) =>
  new Promise<void>((done, fail) => {
    if (socket.connected) return done();
    socket.once('connect', () => done());
    socket.once('connect_error', fail);
  });

/**
 * Drives the open-loop chat load against `url` (registration and sockets included) and measures it.
 * `senderCookie` / `observerCookie` are added to the sockets' Cookie header (e.g. a proxy's sticky
 * cookie, to put senders and the observer on different instances).
 */
export async function measureLive(layout: string, url: string, serverPids: number[], options: { senderCookie?: string; observerCookie?: string } = {}): Promise<LiveFigures> {
  const total = RATE * (SECONDS + WARMUP_SECONDS);
  const memberCount = Math.ceil(total / PER_MEMBER);
  if (!Number.isInteger(RATE) || RATE < 50 || memberCount / MEMBERS_PER_ADDRESS > 250) throw new Error(`LIVE_RATE must be a whole number from 50 to 550 (loopback addresses 127.0.0.2-252)`);
  const groupSize = GROUP * PER_MEMBER;
  const setupStarted = performance.now();
  const members = await registerMembers(url, memberCount);

  const observer = open(url, options.observerCookie ? { cookie: options.observerCookie } : {});
  const pushedAt = new Map<string, number>();
  observer.on('chatMessage', (m) => void pushedAt.set(m.id, performance.now()));
  await connected(observer);

  const sockets = new Map<number, LiveSocket>();
  let openSockets = 0;
  let maxOpenSockets = 0;
  const openGroup = (g: number) => {
    for (let k = 0; k < GROUP; k++) {
      const m = g * GROUP + k;
      if (m >= memberCount) return;
      const member = members[m]!;
      const s = open(url, options.senderCookie ? { ...member, cookie: `${member.cookie}; ${options.senderCookie}` } : member);
      s.on('connect', () => {
        openSockets++;
        maxOpenSockets = Math.max(maxOpenSockets, openSockets);
      });
      s.on('disconnect', () => openSockets--);
      sockets.set(m, s);
    }
  };
  const ackedByGroup = new Map<number, number>();
  const closeGroup = (g: number) => {
    for (let k = 0; k < GROUP; k++) {
      const s = sockets.get(g * GROUP + k);
      s?.disconnect();
      sockets.delete(g * GROUP + k);
    }
  };
  for (let g = 0; g < LEAD_GROUPS; g++) openGroup(g);
  await Promise.all([...sockets.values()].map(connected));
  const setupSeconds = (performance.now() - setupStarted) / 1000;

  const ackedAt = new Map<string, { at: number; measured: boolean }>();
  const sendToAck: number[] = [];
  const refused: Record<string, number> = {};
  let lateSockets = 0;
  let answered = 0;
  const load0 = loadavg()[0]!;
  const serverCpu0 = serverPids.map(cpuSeconds);
  const benchCpu0 = process.cpuUsage();
  const warmupCount = RATE * WARMUP_SECONDS;
  const interval = 1000 / RATE;
  const started = performance.now();
  let measuredStarted = started;
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait); // never before its time (it is timed from then)
    if (i === warmupCount) measuredStarted = performance.now();
    const g = Math.floor(i / groupSize);
    if (i % groupSize === 0) openGroup(g + LEAD_GROUPS);
    const m = g * GROUP + (i % GROUP);
    const socket = sockets.get(m)!;
    const measured = i >= warmupCount;
    if (measured && !socket.connected) lateSockets++;
    socket.emit('sendChatMessage', { message: `live bench message ${i}` }, (answer: AckAnswer) => {
      const at = performance.now();
      answered++;
      if (answer.ok) {
        ackedAt.set((answer.data as SendChatMessageResponse).message.id, { at, measured });
        if (measured) sendToAck.push(at - due);
      } else {
        const key = `${answer.status} ${answer.error}`;
        refused[key] = (refused[key] ?? 0) + 1;
      }
      const acked = (ackedByGroup.get(g) ?? 0) + 1;
      ackedByGroup.set(g, acked);
      if (acked === Math.min(groupSize, total - g * groupSize)) closeGroup(g);
    });
  }
  const sentSeconds = (performance.now() - measuredStarted) / 1000;
  const runSeconds = (performance.now() - started) / 1000;
  const serverCpu = serverPids.map((pid, k) => (cpuSeconds(pid) - serverCpu0[k]!) / runSeconds);
  const benchUsage = process.cpuUsage(benchCpu0);
  const benchCpu = (benchUsage.user + benchUsage.system) / 1e6 / runSeconds;
  // Every ack back, then every acknowledged message pushed (or 10 s).
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline && (answered < total || [...ackedAt.keys()].some((id) => !pushedAt.has(id)))) await sleep(20);
  const load1 = loadavg()[0]!;
  for (const m of [...sockets.keys()]) sockets.get(m)?.disconnect();
  observer.disconnect();

  const ackToPush: number[] = [];
  let pushBeforeAck = 0;
  let missing = 0;
  for (const [id, { at, measured }] of ackedAt) {
    const pushed = pushedAt.get(id);
    if (pushed === undefined) {
      missing++;
      continue;
    }
    if (!measured) continue;
    if (pushed < at) pushBeforeAck++;
    ackToPush.push(Math.max(0, pushed - at));
  }
  ackToPush.sort((a, b) => a - b);
  sendToAck.sort((a, b) => a - b);
  return {
    layout,
    sent: total,
    measured: total - warmupCount,
    achievedPerSecond: (total - warmupCount) / sentSeconds,
    ackToPush: { p50: percentile(ackToPush, 50), p95: percentile(ackToPush, 95), p99: percentile(ackToPush, 99), max: ackToPush[ackToPush.length - 1] ?? Number.NaN },
    sendToAck: { p50: percentile(sendToAck, 50), p99: percentile(sendToAck, 99) },
    pushBeforeAck,
    refused,
    unanswered: total - answered,
    missing,
    lateSockets,
    maxOpenSockets,
    load: [load0, load1],
    setupSeconds,
    serverCpu,
    benchCpu,
  };
}

function benchStandalone(): Promise<LiveFigures> {
  return withBenchStandalone('live', (service) => measureLive('standalone (one process, PGlite)', service.url, [service.child.pid!]));
}

const f1 = (n: number) => n.toFixed(1);
const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const verdict = (value: number, limit: number) => (value < limit ? 'met' : 'NOT met');

function render(figures: LiveFigures[]): string {
  const lines = [
    `Reproduce: \`${COMMAND}\` (or \`npm run bench -- live\`). The standalone process as a child (\`npm start\` minus the web build, LOG_LEVEL=info to a pipe), fresh PGlite DATA_DIR; the bench process holds every client.`,
    `Open loop, ${RATE} \`sendChatMessage\` with ack per second for ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up, over websockets carrying the members' session cookies; the shipped rate limits (5 per member, 30 per address per 10 s) met by ${f0((RATE * (SECONDS + WARMUP_SECONDS)) / PER_MEMBER)} members on ${f0((RATE * (SECONDS + WARMUP_SECONDS)) / PER_MEMBER / MEMBERS_PER_ADDRESS)} loopback addresses, in groups of ${GROUP} connected ${LEAD_GROUPS} slots (${(LEAD_GROUPS * GROUP * PER_MEMBER * 1000) / RATE} ms) before their slot (every message is pushed to every open socket). ack → push: the sender's ack to a guest observer's \`chatMessage\` with that id, one clock.`,
    '',
    `| figure | ${figures.map((f) => f.layout).join(' | ')} | target |`,
    `|---|${figures.map(() => '---:|').join('')}---|`,
  ];
  const row = (name: string, value: (f: LiveFigures) => string, target: string) => lines.push(`| ${name} | ${figures.map(value).join(' | ')} | ${target} |`);
  row('ack → push p50 ms', (f) => `${f1(f.ackToPush.p50)} (${verdict(f.ackToPush.p50, TARGETS.p50Ms)})`, `< ${TARGETS.p50Ms}`);
  row('ack → push p95 ms', (f) => f1(f.ackToPush.p95), '—');
  row('ack → push p99 ms', (f) => `${f1(f.ackToPush.p99)} (${verdict(f.ackToPush.p99, TARGETS.p99Ms)})`, `< ${TARGETS.p99Ms}`);
  row('ack → push max ms', (f) => f1(f.ackToPush.max), '—');
  row('achieved commands/s', (f) => f0(f.achievedPerSecond), '500');
  row('send → ack p50 / p99 ms', (f) => `${f1(f.sendToAck.p50)} / ${f1(f.sendToAck.p99)}`, '— (command side: p99 < 25)');
  row('messages measured (refused, never acknowledged, never pushed)', (f) => `${f0(f.measured)} (${f0(Object.values(f.refused).reduce((a, b) => a + b, 0))}, ${f0(f.unanswered)}, ${f0(f.missing)})`, '0 refused, 0 lost');
  row('pushed before its ack (counted as 0 ms)', (f) => f0(f.pushBeforeAck), '—');
  row('sockets open at most / measured sends before their socket connected', (f) => `${f0(f.maxOpenSockets + 1)} / ${f0(f.lateSockets)}`, '—');
  row('load average (1 min) before → after', (f) => `${f.load[0].toFixed(2)} → ${f.load[1].toFixed(2)}`, '2 cores');
  row('CPU while sending: server process(es) / bench process (s per s)', (f) => `${f.serverCpu.map((c) => c.toFixed(2)).join(' + ')} / ${f.benchCpu.toFixed(2)}`, '—');
  row('setup s (register + connect)', (f) => f1(f.setupSeconds), '—');
  for (const f of figures) for (const [reason, n] of Object.entries(f.refused)) lines.push('', `${f.layout}: ${n} refused with ${reason}`);
  return lines.join('\n');
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const figures = [await benchStandalone()];
  return { title: 'Live path (ack → socket push)', markdown: render(figures) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  console.log(`## ${title}\n\n${markdown}`);
  process.exit(0);
}
