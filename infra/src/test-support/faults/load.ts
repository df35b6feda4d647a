import { randomUUID } from 'node:crypto';
import { smallPng } from '@pass/command-api/test-support';
import type { EventStore, RecordedEvent } from '@pass/events';

/**
 * A stream of member commands from concurrent clients for the fault suites. Every client
 * registers, buys points, then sends chat messages, asks for free points and now and then
 * claims a pass. A free point is earned as the web earns it: the client opens the countdown
 * (its ad-view ticket), chats on meanwhile, and asks for the point once 29 s have passed. Each request carries its own x-request-id (the events' correlation id); every
 * acknowledged answer (2xx) is recorded with the event types it must have left in the store.
 * Requests that fail (connection refused, 5xx, timeouts) are not acknowledged: the client
 * waits a little and goes on, as a browser would.
 */
export interface Ack {
  requestId: string;
  command: 'register' | 'purchase' | 'chat' | 'freePoint' | 'claim';
  /** Event types the acknowledged command must have stored with its correlation id. */
  expects: string[];
}

export interface LoadOptions {
  /** Where requests go (read again for every request: a restarted process has a new URL). */
  origin: () => string;
  clients: number;
  /** Claim a pass every n-th step (0: never). */
  claimEvery?: number;
  /** Pause between a client's commands (ms). */
  stepMs?: number;
  /** Abort a request after this long (ms). */
  timeoutMs?: number;
}

/** The web asks for the point when the 30 s countdown shows 1 s. */
const COUNTDOWN_MS = 29_000;

export class Load {
  readonly acks: Ack[] = [];
  /** Answers that were not 2xx (status → count; 0 = no answer). */
  readonly refused = new Map<number, number>();
  /** Times a client was answered 401 and signed in again. */
  relogins = 0;
  private running = false;
  private loops: Promise<void>[] = [];
  private image: Buffer | undefined;

  constructor(private readonly options: LoadOptions) {}

  async start(): Promise<void> {
    this.image = await smallPng();
    this.running = true;
    this.loops = Array.from({ length: this.options.clients }, (_, i) => this.client(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Resolves once `n` more commands have been acknowledged. */
  async untilAcked(n: number, timeoutMs = 60_000): Promise<void> {
    const target = this.acks.length + n;
    const deadline = Date.now() + timeoutMs;
    while (this.acks.length < target) {
      if (Date.now() > deadline) throw new Error(`only ${this.acks.length} of ${target} commands acknowledged in ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  private async client(index: number): Promise<void> {
    const cookies = new Map<string, string>();
    const email = `load${index}x${randomUUID().slice(0, 6)}@example.com`;
    const send = async (command: Ack['command'], expects: string[], method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; requestId: string }> => {
      const requestId = `${command}-${randomUUID()}`;
      const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      // Each client behind its own address (the proxy's X-Forwarded-For), as real members are.
      const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': requestId, 'x-forwarded-for': `10.1.${index >> 8}.${(index & 255) + 1}`, ...(cookie ? { cookie } : {}) };
      let payload: string | FormData | undefined;
      if (body instanceof FormData) payload = body;
      else if (body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(body);
      }
      try {
        const res = await fetch(this.options.origin() + path, {
          method,
          headers,
          ...(payload === undefined ? {} : { body: payload }),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
        for (const line of res.headers.getSetCookie()) {
          const pair = line.split(';')[0]!;
          const eq = pair.indexOf('=');
          cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        const text = await res.text();
        const json: unknown = text ? JSON.parse(text) : null;
        if (res.status >= 200 && res.status < 300) {
          if (expects.length > 0) this.acks.push({ requestId, command, expects });
        } else {
          this.refused.set(res.status, (this.refused.get(res.status) ?? 0) + 1);
        }
        return { status: res.status, json, requestId };
      } catch {
        this.refused.set(0, (this.refused.get(0) ?? 0) + 1);
        return { status: 0, json: null, requestId };
      }
    };

    const pause = () => sleep(150);
    // Join (again until answered: a join that was stored but not answered signs in on retry).
    // A 401 later (sessions lost with a Redis that kept nothing) signs in again, as the web does.
    const join = async () => {
      while (this.running) {
        const joined = await send('register', [], 'POST', '/api/register-user', { email, password: 'pass1' });
        if (joined.status === 200 || joined.status === 201) {
          if ((joined.json as { registered?: boolean } | null)?.registered) {
            this.acks.push({ requestId: joined.requestId, command: 'register', expects: ['UserRegistered'] });
          }
          return;
        }
        await pause();
      }
    };
    await join();
    let step = 0;
    let points = 0;
    /** The free-point countdown this client opened: its ticket and when (local time). */
    let countdown: { ticket: string; startedAt: number } | undefined;
    while (this.running) {
      step += 1;
      if (points < 25) {
        const order = await send('purchase', [], 'POST', '/api/payments/orders', { amountUsd: 1 });
        if (order.status === 401) {
          this.relogins += 1;
          await join();
          continue;
        }
        const orderId = (order.json as { orderId?: string } | null)?.orderId;
        if (orderId) {
          const captured = await send('purchase', ['PointsPurchased'], 'POST', `/api/payments/orders/${orderId}/capture`);
          if (captured.status === 200) points += 100;
        }
      } else if (this.options.claimEvery && step % this.options.claimEvery === 0) {
        const form = new FormData();
        const fields = { fullname: `Load ${index}`, country: ['Spain', 'Peru', 'Japan', 'Kenya'][index % 4]!, email, link: 'https://example.com', message: 'Hello', passes: '1' };
        for (const [k, v] of Object.entries(fields)) form.set(k, v);
        form.set('image', new Blob([new Uint8Array(this.image!)], { type: 'image/png' }), 'me.png');
        const claimed = await send('claim', ['PassesReserved', 'PassesClaimed'], 'POST', '/api/register-special-user', form);
        if (claimed.status === 200) points -= 20;
        if (claimed.status === 401) {
          this.relogins += 1;
          await join();
        }
      } else if (step % 4 === 0 && !countdown) {
        const opened = await send('freePoint', [], 'POST', '/api/free-point/ticket');
        const ticket = (opened.json as { ticket?: string } | null)?.ticket;
        if (ticket) countdown = { ticket, startedAt: Date.now() };
        if (opened.status === 401) {
          this.relogins += 1;
          await join();
        }
      } else if (step % 4 === 0 && countdown && Date.now() - countdown.startedAt >= COUNTDOWN_MS) {
        const awarded = await send('freePoint', ['FreePointAwarded'], 'POST', '/api/free-point', { ticket: countdown.ticket });
        // Unanswered or 5xx: asked again with the same ticket (409 if it was stored after all).
        if (awarded.status !== 0 && awarded.status < 500) countdown = undefined;
        if (awarded.status === 401) {
          this.relogins += 1;
          await join();
        }
      } else {
        const sent = await send('chat', ['ChatMessageSent'], 'POST', '/api/chat-messages', { message: `load ${index} step ${step}` });
        if (sent.status === 201) points -= 1;
        if (sent.status === 401) {
          this.relogins += 1;
          await join();
        }
      }
      // About what the rate limits let one member do (5 messages per 10 s).
      await sleep(this.options.stepMs ?? 400);
    }
  }
}

/**
 * Acknowledged commands whose events are missing from the store (counted per correlation id).
 * `events` is everything in the store ($all).
 */
export function missingAcks(acks: Ack[], events: RecordedEvent[]): { missing: Ack[]; checked: number } {
  const byCorrelation = new Map<string, string[]>();
  for (const e of events) {
    const id = e.metadata.correlationId;
    if (typeof id !== 'string') continue;
    const list = byCorrelation.get(id) ?? [];
    list.push(e.type);
    byCorrelation.set(id, list);
  }
  const missing = acks.filter((a) => {
    const types = byCorrelation.get(a.requestId) ?? [];
    return !a.expects.every((t) => types.includes(t));
  });
  return { missing, checked: acks.length };
}

/** Every event of the store, in global order. */
export async function readEverything(store: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ ...(all.length ? { after: all.at(-1)!.position } : {}), maxCount: 5_000 });
    all.push(...page);
    if (page.length < 5_000) return all;
  }
}

/** Duplicated commands: an acknowledged command whose events were stored twice. */
export function doubledAcks(acks: Ack[], events: RecordedEvent[]): Ack[] {
  const counts = new Map<string, number>();
  for (const e of events) {
    const id = e.metadata.correlationId;
    if (typeof id === 'string') counts.set(`${id} ${e.type}`, (counts.get(`${id} ${e.type}`) ?? 0) + 1);
  }
  return acks.filter((a) => a.expects.some((t) => (counts.get(`${a.requestId} ${t}`) ?? 0) > 1));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
