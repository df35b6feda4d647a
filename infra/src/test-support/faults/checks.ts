import { pino } from 'pino';
import { io as connect } from 'socket.io-client';
import { expect } from 'vitest';
import type { EventStore, RecordedEvent } from '@pass/events';
import { CommandHandler } from '@pass/command-api';
import { PassReservationReconciler } from '@pass/command-api';
import { Browser, type LiveClient } from '../client';
import { doubledAcks, missingAcks, readEverything, type Ack } from './load';
import type { Tally } from './tally';

/** Everything a reader sees through query-api (the read models), as one comparable value. */
export async function readSide(origin: string): Promise<Record<string, unknown>> {
  const guest = new Browser(origin);
  const paths = ['/api/main-data', '/api/chat-messages?limit=100', '/api/ranking', '/api/registry', '/api/countries'];
  const answers = await Promise.all(paths.map((p) => guest.request('GET', p)));
  const out: Record<string, unknown> = {};
  answers.forEach((r, i) => {
    if (r.status !== 200) throw new Error(`GET ${paths[i]} answered ${r.status}: ${JSON.stringify(r.body)}`);
    out[paths[i]!] = r.body;
  });
  return out;
}

/** Reads until two reads 500 ms apart agree (the projector has caught up with the last command). */
export async function settledReadSide(origin: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last = await readSide(origin);
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const next = await readSide(origin);
    if (JSON.stringify(next) === JSON.stringify(last) || Date.now() > deadline) return next;
    last = next;
  }
}

/**
 * Claims left half-done: a reservation on `passes-pool` with neither a confirmation nor a
 * release, and a PassesClaimed whose reservation was released (both would be a lost or
 * doubled pass).
 */
export function halfDoneClaims(events: RecordedEvent[]): { pending: string[]; claimedButReleased: string[]; reservations: number } {
  const reserved = new Set<string>();
  const settled = new Set<string>();
  const released = new Set<string>();
  const claimed = new Set<string>();
  for (const e of events) {
    const id = (e.data as { reservationId?: string }).reservationId;
    if (!id) continue;
    if (e.type === 'PassesReserved') reserved.add(id);
    if (e.type === 'PassReservationConfirmed') settled.add(id);
    if (e.type === 'PassReservationReleased') {
      settled.add(id);
      released.add(id);
    }
    if (e.type === 'PassesClaimed') claimed.add(id);
  }
  return {
    pending: [...reserved].filter((id) => !settled.has(id)),
    claimedButReleased: [...claimed].filter((id) => released.has(id)),
    reservations: reserved.size,
  };
}

/** A socket that, like a browser behind the proxy, reconnects to whichever query-api answers. */
export function roamingSocket(origins: string[]): { current: () => LiveClient; reconnects: () => number; close: () => void } {
  let socket: LiveClient;
  let reconnects = 0;
  let closed = false;
  let turn = 0;
  const open = () => {
    const origin = origins[turn++ % origins.length]!;
    socket = connect(origin, { transports: ['websocket'], reconnection: false });
    socket.on('connect_error', () => setTimeout(() => !closed && open(), 200));
    socket.on('disconnect', () => {
      if (closed) return;
      reconnects += 1;
      setTimeout(open, 100);
    });
  };
  open();
  return { current: () => socket, reconnects: () => reconnects, close: () => ((closed = true), socket.disconnect()) };
}

/** Runs the claim reconciler once as if a minute had passed, so it settles every reservation it would release. */
export async function reconcileAsIfLater(store: EventStore): Promise<void> {
  const logger = pino({ level: 'silent' });
  await new PassReservationReconciler({ handler: new CommandHandler({ eventStore: store, logger }), logger, clock: () => new Date(Date.now() + 61_000) }).runOnce();
}

/**
 * The verdict after a fault: every acknowledged command's events are stored exactly once, and
 * once the reconciler has run no claim is left half-done. Counts go to the suite's tally.
 */
export async function expectNothingLostOrHalfDone(store: EventStore, acks: Ack[], tally: Tally): Promise<void> {
  const all = await readEverything(store);
  const { missing, checked } = missingAcks(acks, all);
  tally.lost(missing.length);
  tally.note('acknowledged commands', checked);
  expect(missing).toEqual([]);
  expect(doubledAcks(acks, all)).toEqual([]);
  await reconcileAsIfLater(store);
  const half = halfDoneClaims(await readEverything(store));
  expect(half.pending).toEqual([]);
  expect(half.claimedButReleased).toEqual([]);
  tally.note('reservations', half.reservations);
}
